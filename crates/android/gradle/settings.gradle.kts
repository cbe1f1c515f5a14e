// Gradle project that packages the Rust library (libtessera_android.so, built by cargo-ndk)
// and the repository's assets/ and config/ into an APK. No Java or Kotlin sources.
pluginManagement {
    repositories {
        google()
        mavenCentral()
        gradlePluginPortal()
    }
}

dependencyResolutionManagement {
    repositoriesMode.set(RepositoriesMode.FAIL_ON_PROJECT_REPOS)
    repositories {
        google()
        mavenCentral()
    }
}

rootProject.name = "tessera-android"
include(":app")
