// The sky's radiance: single scattering in a spherical atmosphere of Rayleigh (air) and Mie
// (aerosol) particles with exponential density profiles, and ozone absorption, integrated
// along the view ray with the sun's transmittance to each sample (after Nishita et al. 1993
// and the parameters of Bruneton's precomputed atmosphere), with higher orders approximated by a
// constant gain. `env_sky.comp` evaluates it once
// per cube-map texel when the sun moves, so the ray march's cost is paid rarely, not per
// pixel per frame.
#ifndef TESSERA_ATMOSPHERE_GLSL
#define TESSERA_ATMOSPHERE_GLSL

const float PLANET_RADIUS = 6360e3;
const float ATMOSPHERE_RADIUS = 6420e3;
// The eye's height above the ground (m).
const float EYE_HEIGHT = 200.0;
// Scattering coefficients at sea level (1/m) for red, green and blue.
const vec3 RAYLEIGH = vec3(5.802e-6, 13.558e-6, 33.1e-6);
const float RAYLEIGH_HEIGHT = 8000.0;
const float MIE_SCATTERING = 3.996e-6;
const float MIE_EXTINCTION = 4.440e-6;
const float MIE_HEIGHT = 1200.0;
const float MIE_G = 0.8;
// Ozone absorbs but does not scatter: a tent profile 30 km wide around 25 km.
const vec3 OZONE = vec3(0.650e-6, 1.881e-6, 0.085e-6);
const float GROUND_ALBEDO = 0.3;
// Single scattering gives about half of a clear sky's radiance (light scattered more than
// once, and off the ground first, makes up the rest): its in-scattering is doubled as a
// cheap stand-in for the higher orders a full precomputation would integrate.
const float HIGHER_ORDERS = 2.0;
const float ATMOSPHERE_PI = 3.14159265358979;

// Distance along the ray from `o` in direction `d` (unit) to the sphere of radius `r`
// around the planet's centre, the far root; negative when it misses.
float sphere_exit(vec3 o, vec3 d, float r) {
    float b = dot(o, d);
    float c = dot(o, o) - r * r;
    float disc = b * b - c;
    return disc < 0.0 ? -1.0 : -b + sqrt(disc);
}

// The near positive root (the ground seen from above), or -1 when the ray misses.
float sphere_entry(vec3 o, vec3 d, float r) {
    float b = dot(o, d);
    float c = dot(o, o) - r * r;
    float disc = b * b - c;
    if (disc < 0.0) {
        return -1.0;
    }
    float t = -b - sqrt(disc);
    return t > 0.0 ? t : -1.0;
}

// Extinction (1/m) at point `p` (planet-centred).
vec3 extinction_at(vec3 p, out float rayleigh_density, out float mie_density) {
    float h = max(length(p) - PLANET_RADIUS, 0.0);
    rayleigh_density = exp(-h / RAYLEIGH_HEIGHT);
    mie_density = exp(-h / MIE_HEIGHT);
    float ozone_density = max(0.0, 1.0 - abs(h - 25e3) / 15e3);
    return RAYLEIGH * rayleigh_density + MIE_EXTINCTION * mie_density + OZONE * ozone_density;
}

// Transmittance from `p` towards the sun (0 when the planet is in the way).
vec3 sun_transmittance(vec3 p, vec3 to_sun) {
    if (sphere_entry(p, to_sun, PLANET_RADIUS) > 0.0) {
        return vec3(0.0);
    }
    float len = sphere_exit(p, to_sun, ATMOSPHERE_RADIUS);
    const int STEPS = 8;
    float dt = len / float(STEPS);
    vec3 depth = vec3(0.0);
    for (int i = 0; i < STEPS; ++i) {
        float r, m;
        depth += extinction_at(p + to_sun * ((float(i) + 0.5) * dt), r, m) * dt;
    }
    return exp(-depth);
}

// The radiance arriving along the view direction `d` (unit, pointing away from the eye)
// for a sun of irradiance 1 in direction `to_sun` (unit): the light scattered once towards
// the eye, plus, where the ray meets the ground, the ground's diffuse reflection of the sun
// seen through the air in between. No sun disk: the sun is drawn (and lights surfaces) apart.
vec3 sky_radiance(vec3 d, vec3 to_sun) {
    vec3 eye = vec3(0.0, PLANET_RADIUS + EYE_HEIGHT, 0.0);
    float ground = sphere_entry(eye, d, PLANET_RADIUS);
    float len = ground > 0.0 ? ground : sphere_exit(eye, d, ATMOSPHERE_RADIUS);
    const int STEPS = 24;
    float dt = len / float(STEPS);
    vec3 rayleigh_sum = vec3(0.0);
    vec3 mie_sum = vec3(0.0);
    vec3 depth = vec3(0.0);
    for (int i = 0; i < STEPS; ++i) {
        vec3 p = eye + d * ((float(i) + 0.5) * dt);
        float r, m;
        vec3 ext = extinction_at(p, r, m);
        vec3 through = exp(-(depth + ext * (0.5 * dt))) * sun_transmittance(p, to_sun);
        rayleigh_sum += through * (r * dt);
        mie_sum += through * (m * dt);
        depth += ext * dt;
    }
    float mu = dot(d, to_sun);
    float rayleigh_phase = 3.0 / (16.0 * ATMOSPHERE_PI) * (1.0 + mu * mu);
    float g2 = MIE_G * MIE_G;
    float mie_phase = 3.0 / (8.0 * ATMOSPHERE_PI) * (1.0 - g2) * (1.0 + mu * mu)
        / ((2.0 + g2) * pow(max(1.0 + g2 - 2.0 * MIE_G * mu, 1e-4), 1.5));
    vec3 l = (RAYLEIGH * rayleigh_sum * rayleigh_phase + MIE_SCATTERING * mie_sum * mie_phase)
        * HIGHER_ORDERS;
    if (ground > 0.0) {
        vec3 p = eye + d * ground;
        vec3 n = normalize(p);
        float lit = max(dot(n, to_sun), 0.0);
        l += exp(-depth) * sun_transmittance(p, to_sun) * lit * GROUND_ALBEDO / ATMOSPHERE_PI;
    }
    return l;
}

#endif
