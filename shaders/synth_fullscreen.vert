#version 450
// One triangle that covers the whole render area, whatever the first vertex is.
void main() {
    uint i = uint(gl_VertexIndex) % 3u;
    vec2 p = vec2(float((i << 1) & 2u), float(i & 2u));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
