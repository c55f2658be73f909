/* libFuzzer target: `certs --inspect`'s reader (PEM chain -> sizes) on any file. The
 * bytes go into a memory file that the reader opens by its /proc path, as it would a
 * user's file. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include <openssl/err.h>

#include "pki/chain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz-chain", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		static pq_chain_info info; /* large: kept off the stack */
		pq_diag d;
		(void)pq_chain_inspect(path, &info, &d);
	}
	close(fd);
	ERR_clear_error();
	return 0;
}
