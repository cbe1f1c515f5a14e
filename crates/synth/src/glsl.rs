//! GLSL for a synthetic pass, generated from its [`SynthPass`] (see `desc` for the
//! semantics). Binding `j` is use `j`; colour outputs are numbered in use order, input
//! attachment indices likewise (the order `render` gives the subpass references).

use super::desc::{Shape, SynthPass};
use super::values::{self, class, key, Class};
use std::fmt::Write as _;
use tessera_graph::access::Access;
use tessera_graph::PassKind;

fn prefix(c: Class) -> &'static str {
    match c {
        Class::Float => "",
        Class::Uint => "u",
        Class::Sint => "i",
    }
}

fn decode(c: Class, e: &str) -> String {
    match c {
        Class::Float => format!("uint(round(clamp(({e}).r, 0.0, 1.0) * 31.0))"),
        Class::Uint => format!("(({e}).r & 31u)"),
        Class::Sint => format!("(uint(({e}).r) & 31u)"),
    }
}

fn encode(c: Class, v: &str) -> String {
    match c {
        Class::Float => format!("vec4(float({v}) / 31.0, 0.0, 0.0, 1.0)"),
        Class::Uint => format!("uvec4({v}, 0u, 0u, 1u)"),
        Class::Sint => format!("ivec4(int({v}), 0, 0, 1)"),
    }
}

/// The fragment (raster) or compute (compute) shader of a pass; `None` for transfer passes.
pub fn shader(p: &SynthPass) -> Option<String> {
    let compute = match p.kind {
        PassKind::Raster => false,
        PassKind::Compute => true,
        PassKind::Transfer => return None,
    };
    let mut s = String::from("#version 450\n");
    s.push_str(values::GLSL_MIX);
    let (dw, dh) = p.domain;
    let mut body = String::new();
    let mut decl = String::new();
    if compute {
        decl.push_str("layout(local_size_x = 8, local_size_y = 8) in;\n");
        decl.push_str("layout(push_constant) uniform PC { uint mode; } pc;\n");
        let _ = writeln!(
            body,
            "    uint x = gl_GlobalInvocationID.x; uint y = gl_GlobalInvocationID.y;\n    \
             if (pc.mode != 0u || x >= {dw}u || y >= {dh}u) return;"
        );
    } else {
        body.push_str("    uint x = uint(gl_FragCoord.x); uint y = uint(gl_FragCoord.y);\n");
    }
    let _ = writeln!(
        body,
        "    uint acc = mix({}u, x + y * 65536u);",
        key(&p.name)
    );
    let mut color = 0u32;
    let mut input = 0u32;
    let mut writes = String::new();
    for u in &p.uses {
        let j = u.j;
        match (u.access, u.shape) {
            (
                Access::Sampled,
                Shape::Image {
                    format,
                    w,
                    h,
                    samples,
                },
            ) => {
                let c = class(format);
                let ms = if samples > 1 { "MS" } else { "" };
                let _ = writeln!(
                    decl,
                    "layout(set = 0, binding = {j}) uniform {}sampler2D{ms} t{j};",
                    prefix(c)
                );
                // Level 0, or sample 0 of a multisampled image.
                let e = format!(
                    "texelFetch(t{j}, ivec2(min(x, {}u), min(y, {}u)), 0)",
                    w - 1,
                    h - 1
                );
                let _ = writeln!(body, "    acc = mix(acc, {} + 1u);", decode(c, &e));
            }
            (
                Access::InputAttachment,
                Shape::Image {
                    format, samples, ..
                },
            ) => {
                let c = class(format);
                let ms = if samples > 1 { "MS" } else { "" };
                let _ = writeln!(
                    decl,
                    "layout(input_attachment_index = {input}, set = 0, binding = {j}) uniform {}subpassInput{ms} i{j};",
                    prefix(c)
                );
                input += 1;
                let e = if samples > 1 {
                    format!("subpassLoad(i{j}, 0)")
                } else {
                    format!("subpassLoad(i{j})")
                };
                let _ = writeln!(body, "    acc = mix(acc, {} + 1u);", decode(c, &e));
            }
            (
                Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite,
                Shape::Image { format, w, h, .. },
            ) => {
                let c = class(format);
                let q = values::storage_qualifier(format).unwrap_or("rgba8");
                let _ = writeln!(
                    decl,
                    "layout(set = 0, binding = {j}, {q}) uniform {}image2D s{j};",
                    prefix(c)
                );
                if u.access != Access::StorageWrite {
                    let e = format!("imageLoad(s{j}, ivec2(x, y))");
                    let _ = writeln!(
                        body,
                        "    {{ uint v = 0u; if (x < {w}u && y < {h}u) v = {} + 1u; acc = mix(acc, v); }}",
                        decode(c, &e)
                    );
                }
                if u.access != Access::StorageRead {
                    let _ = writeln!(
                        writes,
                        "    if (x < {w}u && y < {h}u) imageStore(s{j}, ivec2(x, y), {});",
                        encode(c, &format!("(mix(acc, {j}u) & 31u)"))
                    );
                }
            }
            (
                Access::StorageRead | Access::StorageWrite | Access::StorageReadWrite,
                Shape::Buffer { .. },
            ) => {
                let n = u.shape.data_words();
                let _ = writeln!(
                    decl,
                    "layout(std430, set = 0, binding = {j}) buffer B{j} {{ uint w[]; }} b{j};"
                );
                let idx = format!("(x + y * {dw}u)");
                match u.access {
                    Access::StorageRead => {
                        let _ = writeln!(body, "    acc = mix(acc, b{j}.w[4u + {idx} % {n}u]);");
                    }
                    Access::StorageWrite => {
                        let _ = writeln!(
                            writes,
                            "    if (x == 0u && y == 0u) {{ b{j}.w[0] = 3u; b{j}.w[1] = 1u; b{j}.w[2] = 1u; b{j}.w[3] = 0u; }}\n    \
                             if ({idx} < {n}u) b{j}.w[4u + {idx}] = mix(acc, {j}u);"
                        );
                    }
                    _ => {
                        let _ = writeln!(
                            writes,
                            "    if (x == 0u && y == 0u) {{ b{j}.w[0] = 3u; b{j}.w[1] = 1u; b{j}.w[2] = 1u; b{j}.w[3] = 0u; }}\n    \
                             atomicAdd(b{j}.w[4u + {idx} % {n}u], mix(acc, {j}u) & 0xFFFFu);"
                        );
                    }
                }
            }
            (
                Access::ColorWrite | Access::ColorWriteAll | Access::ColorReadWrite,
                Shape::Image { format, .. },
            ) => {
                let c = class(format);
                let o = match c {
                    Class::Float => "vec4",
                    Class::Uint => "uvec4",
                    Class::Sint => "ivec4",
                };
                let _ = writeln!(decl, "layout(location = {color}) out {o} o{color};");
                if super::desc::partial(u) {
                    // Blended with alpha: 0 keeps the pixel as it was, 1 replaces it.
                    let _ = writeln!(
                        writes,
                        "    o{color} = vec4(float(mix(acc, {j}u) & 31u) / 31.0, 0.0, 0.0, \
                         (mix(mix({}u, x + y * 65536u), {}u) & 3u) == 0u ? 0.0 : 1.0);",
                        key(&p.name),
                        values::UNTOUCHED_SALT | j
                    );
                } else {
                    let _ = writeln!(
                        writes,
                        "    o{color} = {};",
                        encode(c, &format!("(mix(acc, {j}u) & 31u)"))
                    );
                }
                color += 1;
            }
            (Access::DepthWrite, _) => {
                let _ = writeln!(
                    writes,
                    "    gl_FragDepth = float(mix(acc, {j}u) & 31u) / 31.0;"
                );
            }
            _ => {}
        }
    }
    s.push_str(&decl);
    s.push_str("void main() {\n");
    s.push_str(&body);
    s.push_str(&writes);
    s.push_str("}\n");
    Some(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desc::SynthUse;
    use tessera_graph::Format;

    #[test]
    fn lighting_like_pass_reads_inputs_and_writes_its_output() {
        let img = |format| Shape::Image {
            format,
            w: 16,
            h: 8,
            samples: 1,
        };
        let p = SynthPass {
            name: "lighting".into(),
            kind: PassKind::Raster,
            domain: (16, 8),
            uses: vec![
                SynthUse {
                    j: 0,
                    access: Access::InputAttachment,
                    clear: false,
                    resource: 0,
                    shape: img(Format::D32_SFLOAT),
                    from: None,
                },
                SynthUse {
                    j: 1,
                    access: Access::InputAttachment,
                    clear: false,
                    resource: 1,
                    shape: img(Format::R8G8B8A8_UNORM),
                    from: None,
                },
                SynthUse {
                    j: 2,
                    access: Access::ColorWriteAll,
                    clear: false,
                    resource: 2,
                    shape: img(Format::R32_UINT),
                    from: None,
                },
            ],
        };
        let s = shader(&p).unwrap();
        assert!(
            s.contains("input_attachment_index = 0, set = 0, binding = 0) uniform subpassInput i0")
        );
        assert!(
            s.contains("input_attachment_index = 1, set = 0, binding = 1) uniform subpassInput i1")
        );
        assert!(s.contains("layout(location = 0) out uvec4 o0;"));
        assert!(s.contains(&format!("mix({}u, x + y * 65536u)", key("lighting"))));
        assert!(shader(&SynthPass {
            kind: PassKind::Transfer,
            ..p
        })
        .is_none());
    }
}
