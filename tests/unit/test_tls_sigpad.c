/* Size-emulated signatures on the wire: a server refuses an emulated chain unless asked
 * for, refuses it compressed, and refuses clients that do not offer the pad; a pqtls
 * client that offers it completes the handshake. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* cmocka needs the headers above. */
#include <cmocka.h>

#include "tls/ctx.h"
#include "tls/mem.h"
#include "tls/sigpad.h"

#include "testchain.h"

static int make_chain(void **state)
{
	(void)state;
	return testchain_make("emu-mayo-1");
}

static void server_refusals(void **state)
{
	(void)state;
	SSL_CTX *s = NULL;
	pq_diag d = {0};
	assert_int_equal(chain_info.cv_carry, 454 - 64);
	pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir};
	assert_int_equal(pq_tls_ctx_new(&sc, &s, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(d.msg, "size emulation of emu-mayo-1"));
	assert_non_null(strstr(d.msg, "emulated_sig"));
	sc.emulated_sig = 1;
	sc.cert_comp = "zlib";
	assert_int_equal(pq_tls_ctx_new(&sc, &s, &d), PQ_EUNSUPPORTED);
	assert_non_null(strstr(d.msg, "cannot be compressed"));
	assert_null(s);
	/* the pad's size must fit an extension */
	SSL_CTX *raw = SSL_CTX_new(TLS_server_method());
	assert_int_equal(pq_tls_sigpad_server(raw, 3, "x", &d), PQ_ERANGE);
	assert_int_equal(pq_tls_sigpad_server(raw, PQ_TLS_SIGPAD_MAX + 5, "x", &d), PQ_ERANGE);
	SSL_CTX_free(raw);
}

static void handshakes(void **state)
{
	(void)state;
	SSL_CTX *s = NULL, *padded = NULL, *stock = NULL;
	pq_diag d = {0};
	char ca[300];
	snprintf(ca, sizeof ca, "%s/root.pem", chain_dir);
	pq_tls_config sc = {.role = PQ_TLS_SERVER, .certs_dir = chain_dir, .emulated_sig = 1};
	pq_tls_config cc = {.role = PQ_TLS_CLIENT, .ca_file = ca, .sig_pad = 1};
	assert_int_equal(pq_tls_ctx_new(&sc, &s, &d), 0);
	assert_int_equal(pq_tls_ctx_new(&cc, &padded, &d), 0);
	cc.sig_pad = 0;
	assert_int_equal(pq_tls_ctx_new(&cc, &stock, &d), 0);
	pq_tls_mem_result r;
	assert_int_equal(pq_tls_mem_handshakes(s, padded, 2, NULL, &r, &d), 0);
	assert_string_equal(r.sigalg, "ed25519");
	assert_int_equal(pq_tls_mem_handshakes(s, stock, 1, NULL, &r, &d), PQ_ETLS);
	print_message("stock client: %s\n", d.msg);
	pq_tls_ctx_free(s);
	pq_tls_ctx_free(padded);
	pq_tls_ctx_free(stock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(server_refusals),
	    cmocka_unit_test(handshakes),
	};
	return cmocka_run_group_tests(tests, make_chain, testchain_remove);
}
