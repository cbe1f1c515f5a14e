// The APK: a NativeActivity around libtessera_android.so (cargo ndk writes it into
// src/main/jniLibs/<abi>/) and the repository's assets/ and config/ as APK assets.
plugins {
    id("com.android.application")
}

// This module is crates/android/gradle/app/: the repository root is four levels up
// (app -> gradle -> android -> crates -> root).
val repoRoot = file("../../../..")

// assets.srcDirs merges each directory's *contents* at the APK's assets/ root, so the repo's
// config/default.toml would land at assets/default.toml. Copying both into one generated
// directory gives the layout the app reads: assets/scenes/..., assets/graphs/...,
// assets/config/default.toml.
val tesseraAssets = layout.buildDirectory.dir("generated/tessera-assets")
val copyTesseraAssets by tasks.registering(Sync::class) {
    from(repoRoot.resolve("assets"))
    from(repoRoot.resolve("config")) { into("config") }
    into(tesseraAssets)
}

android {
    namespace = "dev.tessera.app"
    compileSdk = 34
    ndkVersion = "27.2.12479018"

    defaultConfig {
        applicationId = "dev.tessera.app"
        minSdk = 28
        targetSdk = 34
        versionCode = 1
        versionName = "0.1.0"
        ndk {
            abiFilters += listOf("arm64-v8a", "armeabi-v7a")
        }
    }

    sourceSets {
        getByName("main") {
            jniLibs.srcDirs("src/main/jniLibs")
            assets.srcDirs(tesseraAssets)
        }
    }

    buildTypes {
        getByName("release") {
            isMinifyEnabled = false
            // Release signing is the builder's: configure a signingConfig here.
        }
    }
}

// Every variant's asset merge runs after the copy.
tasks.named("preBuild") { dependsOn(copyTesseraAssets) }
