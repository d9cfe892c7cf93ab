/* PCRE2 without its JIT. libselinux compiles file_contexts regexes with
 * pcre2 but never asks for JIT compilation, so no pattern ever has JIT
 * code; yet pcre2's compile, match and pattern-info objects reference the
 * JIT's entry points, which drags in the 220 KiB JIT compiler. These are
 * the entry points as PCRE2 itself defines them when built without JIT
 * support, so the linker never pulls the JIT object from libpcre2-8.a.
 * A JIT would also need writable+executable memory in PID 1. */
#include <stddef.h>

#define PCRE2_ERROR_JIT_BADOPTION (-45)

void _pcre2_jit_free_8(void *executable_jit, void *memctl)
{
	(void)executable_jit;
	(void)memctl;
}

size_t _pcre2_jit_get_size_8(void *executable_jit)
{
	(void)executable_jit;
	return 0;
}

const char *_pcre2_jit_get_target_8(void)
{
	return "JIT is not supported";
}

int _pcre2_jit_check_exec_8(const void *executable_jit, unsigned options)
{
	(void)executable_jit;
	(void)options;
	return 0;
}

int pcre2_jit_match_8(const void *code, const unsigned char *subject, size_t length,
		      size_t start_offset, unsigned options, void *match_data, void *mcontext)
{
	(void)code; (void)subject; (void)length; (void)start_offset;
	(void)options; (void)match_data; (void)mcontext;
	return PCRE2_ERROR_JIT_BADOPTION;
}
