/* The file names inside a chain directory, defined once: pki writes them, tls and the
 * commands read them (see pki/chain.h for what each holds). */
#ifndef PQ_PKI_FILES_H
#define PQ_PKI_FILES_H

#define PQ_CHAIN_FILE_ROOT "root.pem"	       /* the trust anchor */
#define PQ_CHAIN_FILE_CHAIN "chain.pem"	       /* leaf, then intermediates: what a server sends */
#define PQ_CHAIN_FILE_KEY "leaf.key"	       /* the leaf's private key */
#define PQ_CHAIN_FILE_MANIFEST "manifest.json" /* spec and size accounting */
#define PQ_CHAIN_FILE_TRUST "trust.pem" /* trust anchor identifiers: the intermediates left out of
					* chain.pem (the client holds them), then the root */
#define PQ_CHAIN_FILE_OCSP "ocsp.der" /* the leaf's OCSP response (DER) the server staples */
#define PQ_CHAIN_FILE_SIGPAD "sigpad" /* size-emulated leaf: "<bytes> <algorithm>" (tls/sigpad.h) */

#endif
