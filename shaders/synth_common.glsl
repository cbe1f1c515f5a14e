// Shared by every synthetic pass of `tessera exec` (crates/vk/src/synth): the 32-bit mixing
// function. The Rust twin is `synth::values::mix`; keep both identical.
uint mix(uint a, uint b) {
    uint h = a ^ (b * 0x9E3779B9u);
    h ^= h >> 16;
    h *= 0x7FEB352Du;
    h ^= h >> 15;
    h *= 0x846CA68Bu;
    h ^= h >> 16;
    return h;
}
