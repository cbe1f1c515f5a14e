// The luminance histogram shared by histogram.comp and exposure.comp: BINS bins, bin 0 for
// (nearly) black pixels, bins 1.. over log2 luminance from LOG_MIN to LOG_MIN + LOG_RANGE.
#ifndef TESSERA_EXPOSURE_GLSL
#define TESSERA_EXPOSURE_GLSL
const uint BINS = 64u;
const float LOG_MIN = -10.0;
const float LOG_RANGE = 16.0;
#endif
