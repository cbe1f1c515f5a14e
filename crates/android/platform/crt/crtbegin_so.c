/*
 * Tessera's crtbegin_so.o: the start file clang links first into every Android shared
 * library (the NDK ships bionic's; this is the project's own, written from what the
 * platform's ABI expects of a shared library's start file).
 *
 * - __dso_handle: this library's identity for __cxa_atexit/__cxa_thread_atexit_impl
 *   (Rust's std registers thread-local destructors with it). Hidden: every library has
 *   its own.
 * - At dlclose (a .fini_array destructor), __cxa_finalize(&__dso_handle) runs the
 *   destructors registered for this library.
 * - The Android ABI note (.note.android.ident): the API level the library was built for.
 *
 * Compiled by scripts/android-apk.sh with clang-14, no headers (-ffreestanding -nostdinc).
 * TESSERA_ANDROID_API is the minSdk (the script passes -DTESSERA_ANDROID_API=28).
 */

#ifndef TESSERA_ANDROID_API
#error "TESSERA_ANDROID_API (the minSdk) must be defined"
#endif

#define TESSERA_STR2(x) #x
#define TESSERA_STR(x) TESSERA_STR2(x)

extern void __cxa_finalize(void *dso);

__attribute__((visibility("hidden"))) void *__dso_handle = &__dso_handle;

__attribute__((destructor, used)) static void tessera_crt_on_dlclose(void) {
    __cxa_finalize(&__dso_handle);
}

/* The note: namesz 8, descsz 4, type 1 (NT_VERSION-like "ident"), "Android\0", the API. */
__asm__(".pushsection .note.android.ident, \"a\", %note\n"
        ".balign 4\n"
        ".long 8\n"
        ".long 4\n"
        ".long 1\n"
        ".ascii \"Android\\0\"\n"
        ".long " TESSERA_STR(TESSERA_ANDROID_API) "\n"
        ".popsection\n");
