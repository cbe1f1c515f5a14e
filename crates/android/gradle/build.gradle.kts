// Root build: only declares the Android Gradle plugin version (AGP 8.5 needs Gradle 8.7+
// and JDK 17).
plugins {
    id("com.android.application") version "8.5.2" apply false
}
