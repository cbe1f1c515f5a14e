//! Synthetic frames for compile-time measurements.

use tessera_graph::{Access, Format, Graph, ImageDesc};

/// A deterministic frame of `passes` passes: each writes one new resource and reads one or
/// two recent ones, a mix of raster and compute, ending in an output.
pub fn synthetic(passes: usize) -> Graph {
    let mut g = Graph::new(format!("synthetic_{passes}"));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut produced = Vec::with_capacity(passes);
    for i in 0..passes {
        let raster = i % 4 != 3;
        let format = if raster {
            Format::R16G16B16A16_SFLOAT
        } else {
            Format::R32_SFLOAT
        };
        let out = g.image(
            format!("r{i}"),
            ImageDesc::new(format, 1920 >> (i % 3), 1080 >> (i % 3)),
        );
        if i + 1 == passes {
            g.resource_mut(out).output = true;
        }
        let reads: Vec<_> = (0..1 + (next() % 2) as usize)
            .filter(|_| !produced.is_empty())
            .map(|_| produced[produced.len() - 1 - (next() as usize % produced.len().min(8))])
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut b = if raster {
            g.raster(format!("p{i}"))
        } else {
            g.compute(format!("p{i}"))
        };
        for r in reads {
            b = b.uses(r, Access::Sampled);
        }
        b.uses(
            out,
            if raster {
                Access::ColorWriteAll
            } else {
                Access::StorageWrite
            },
        )
        .side_effects();
        produced.push(out);
    }
    g
}
