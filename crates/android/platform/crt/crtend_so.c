/*
 * Tessera's crtend_so.o: the end file clang links last into every Android shared library.
 * Bionic's only marks the stack non-executable (every object clang emits already carries
 * .note.GNU-stack), so this one is empty; it exists because the clang driver links it.
 */
typedef int tessera_crtend_so_is_empty;
