-- pqtls results database (docs/results.md documents every column); its schema_version is
-- PQ_SCHEMA_VERSION (src/exp/rdb.h), written into meta and user_version when the file is made.
-- Units are in column names: _us microseconds, _bytes bytes, _bps bits per second,
-- _pct percent (0..100), _segs TCP segments, _pkts packets. NULL means "not reached"
-- or "not measured", never zero.
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE run (
	run_id           INTEGER PRIMARY KEY,
	run_uuid         TEXT NOT NULL UNIQUE,
	spec_name        TEXT NOT NULL,
	spec_hash        TEXT NOT NULL,
	spec_text        TEXT NOT NULL,
	command_line     TEXT NOT NULL,
	pqtls_version    TEXT NOT NULL,
	openssl_version  TEXT NOT NULL,
	kernel           TEXT NOT NULL,
	cpu_model        TEXT NOT NULL,
	cpu_count        INTEGER NOT NULL,
	host_name        TEXT NOT NULL,
	link_backend     TEXT NOT NULL,
	cc_default       TEXT NOT NULL,
	seed             INTEGER NOT NULL,
	shard_index      INTEGER NOT NULL,
	shard_count      INTEGER NOT NULL,
	remote_server    TEXT,
	chromium_version TEXT, -- the browser of client = chromium cells; NULL when none ran
	cells_planned    INTEGER NOT NULL,
	started_at       TEXT NOT NULL,
	ended_at         TEXT,
	end_status       TEXT NOT NULL DEFAULT 'running'
);

CREATE TABLE link_check (
	link_check_id    INTEGER PRIMARY KEY,
	run_id           INTEGER NOT NULL REFERENCES run(run_id),
	link_key         TEXT NOT NULL,
	link_desc        TEXT NOT NULL,
	backend          TEXT NOT NULL,
	checked          INTEGER NOT NULL,
	ok               INTEGER,
	rtt_cfg_us       REAL,
	rtt_samples      INTEGER,
	rtt_lost         INTEGER,
	rtt_p50_us       REAL,
	rtt_p99_us       REAL,
	rtt_min_us       REAL,
	rtt_max_us       REAL,
	rtt_err_p50_us   REAL,
	rtt_err_p99_us   REAL,
	rtt_ok           INTEGER,
	c2s_rate_bps     REAL,
	s2c_rate_bps     REAL,
	c2s_rate_ok      INTEGER,
	s2c_rate_ok      INTEGER,
	c2s_loss_pct     REAL,
	s2c_loss_pct     REAL,
	c2s_loss_ok      INTEGER,
	s2c_loss_ok      INTEGER,
	host_steal_pct   REAL,
	-- the echo as the probe saw it (the host's noise; rtt_* above are kernel-timed), what
	-- the link itself did during the check (its forwarder's accounting; NULL: not kept,
	-- netem) and the host's run queue
	probe_p50_us     REAL,
	probe_p99_us     REAL,
	link_ok          INTEGER,
	link_late_p50_us REAL,
	link_late_p99_us REAL,
	link_late_max_us REAL,
	link_releases_pkts       INTEGER,
	link_drop_loss_pkts      INTEGER,
	link_drop_queue_pkts     INTEGER,
	link_drop_unplanned_pkts INTEGER,
	link_fwd_wait_us REAL,
	host_runq_before INTEGER,
	host_runq_after  INTEGER,
	summary          TEXT NOT NULL,
	checked_at       TEXT NOT NULL
);

CREATE TABLE cell (
	cell_id                 INTEGER PRIMARY KEY,
	cell_key                TEXT NOT NULL,
	point_key               TEXT NOT NULL,
	host_name               TEXT NOT NULL,
	run_id                  INTEGER NOT NULL REFERENCES run(run_id),
	link_check_id           INTEGER REFERENCES link_check(link_check_id),
	cell_index              INTEGER NOT NULL,
	link_key                TEXT NOT NULL,
	trial                   INTEGER NOT NULL,
	arm                     TEXT NOT NULL,
	-- every dimension's effective value (what was in force, whatever set it): the
	-- columns of src/exp/dim.c's table, in its order, put here when the file is made
	-- @DIMENSION_COLUMNS@
	-- the chain as built (pq_chain_info)
	chain_desc              TEXT,
	chain_der_bytes         INTEGER,
	cert_msg_bytes          INTEGER,
	first_flight_bytes      INTEGER,
	first_flight_segs       INTEGER,
	chain_cached            INTEGER,
	-- what the response dimension asked, as a size: N of GET /bytes/N, -1 for '/' and 'none'
	response_bytes          INTEGER NOT NULL,
	-- the MSS in force (the connections' tcp_info); NULL unknown
	mss_bytes               INTEGER,
	server_hs_timeout_us    INTEGER NOT NULL,
	server_idle_timeout_us  INTEGER NOT NULL,
	-- the measurement
	link_check_ok           INTEGER,
	status                  TEXT NOT NULL,
	failure_reason          TEXT,
	conns_ok                INTEGER NOT NULL,
	conns_failed            INTEGER NOT NULL,
	server_handshakes       INTEGER,
	server_errors           INTEGER,
	server_error_detail     TEXT,
	client_cpu_us           INTEGER,
	server_link_cpu_us      INTEGER,
	host_steal_pct          REAL,
	host_runq_before        INTEGER,
	host_runq_after         INTEGER,
	host_load1_before       REAL,
	host_load1_after        REAL,
	-- the endpoints during the cell: the nice value the client's threads and the server
	-- process ran at (read back; the larger of the two), their session's scheduling
	-- group's nice (the kernel's autogroup; NULL: no grouping), and how long they waited,
	-- runnable, for a CPU inside this machine (schedstat's run_delay, which steal does
	-- not count): the client per connection (conn.client_wait_us) and the server per
	-- connection, accept to close; the median and the largest of each. NULL: unknown
	-- (a remote server's, a kernel without schedstat)
	host_nice               INTEGER,
	host_group_nice         INTEGER,
	host_client_wait_p50_us REAL,
	host_client_wait_max_us REAL,
	host_server_wait_p50_us REAL,
	host_server_wait_max_us REAL,
	-- fidelity during the cell (measurement columns): the link's own accounting, from its
	-- forwarder (lateness = each packet's write minus its scheduled release; NULL: not
	-- kept, i.e. netem or a remote server), drops by cause, and the verdicts against the
	-- budgets (docs/results.md): 1 within, 0 over, NULL not known
	link_late_p50_us        REAL,
	link_late_p99_us        REAL,
	link_late_max_us        REAL,
	link_releases_pkts      INTEGER,
	link_drop_loss_pkts     INTEGER,
	link_drop_queue_pkts    INTEGER,
	link_drop_unplanned_pkts INTEGER,
	link_fwd_wait_us        REAL,
	link_ok                 INTEGER,
	host_ok                 INTEGER,
	started_at              TEXT NOT NULL,
	wall_us                 INTEGER NOT NULL,
	UNIQUE (cell_key, host_name)
);

CREATE TABLE conn (
	cell_id            INTEGER NOT NULL REFERENCES cell(cell_id),
	conn_index         INTEGER NOT NULL,
	intended_us        REAL NOT NULL,
	start_us           REAL NOT NULL,
	connect_us         REAL,
	client_hello_us    REAL,
	server_hello_us    REAL,
	handshake_us       REAL,
	request_us         REAL,
	ttfb_us            REAL,
	ttlb_us            REAL,
	end_us             REAL,
	latency_us         REAL,
	handshake_rtts     REAL,
	tls_version        TEXT,
	tls_group          TEXT,
	sigalg             TEXT,
	cipher             TEXT,
	resume_offered     INTEGER NOT NULL,
	resumed            INTEGER NOT NULL,
	hrr                INTEGER NOT NULL,
	ch1_bytes          INTEGER NOT NULL, -- the ClientHello (message, 4-byte header included)
	ch1_segs           INTEGER NOT NULL, -- TCP data segments of its flight (0: unknown)
	ch2_bytes          INTEGER NOT NULL, -- the one after a HelloRetryRequest (0: none)
	ch2_segs           INTEGER NOT NULL,
	early_sent         INTEGER NOT NULL,
	early_accepted     INTEGER NOT NULL,
	cert_compressed    INTEGER NOT NULL,
	rx_client_hello_bytes INTEGER, tx_client_hello_bytes INTEGER,
	rx_server_hello_bytes INTEGER, tx_server_hello_bytes INTEGER,
	rx_new_session_ticket_bytes INTEGER, tx_new_session_ticket_bytes INTEGER,
	rx_end_of_early_data_bytes INTEGER, tx_end_of_early_data_bytes INTEGER,
	rx_encrypted_extensions_bytes INTEGER, tx_encrypted_extensions_bytes INTEGER,
	rx_certificate_bytes INTEGER, tx_certificate_bytes INTEGER,
	rx_compressed_certificate_bytes INTEGER, tx_compressed_certificate_bytes INTEGER,
	rx_server_key_exchange_bytes INTEGER, tx_server_key_exchange_bytes INTEGER,
	rx_certificate_request_bytes INTEGER, tx_certificate_request_bytes INTEGER,
	rx_server_hello_done_bytes INTEGER, tx_server_hello_done_bytes INTEGER,
	rx_certificate_verify_bytes INTEGER, tx_certificate_verify_bytes INTEGER,
	rx_client_key_exchange_bytes INTEGER, tx_client_key_exchange_bytes INTEGER,
	rx_finished_bytes INTEGER, tx_finished_bytes INTEGER,
	rx_other_bytes INTEGER, tx_other_bytes INTEGER,
	tls_tx_bytes       INTEGER NOT NULL,
	tls_rx_bytes       INTEGER NOT NULL,
	tcp_tx_bytes       INTEGER NOT NULL,
	tcp_rx_bytes       INTEGER NOT NULL,
	tcp_tx_segs        INTEGER NOT NULL,
	tcp_rx_segs        INTEGER NOT NULL,
	srtt_us            INTEGER NOT NULL,
	rttvar_us          INTEGER NOT NULL,
	min_rtt_us         INTEGER NOT NULL,
	retrans_segs       INTEGER NOT NULL,
	cwnd_segs          INTEGER NOT NULL,
	mss_bytes          INTEGER NOT NULL,
	requests           INTEGER NOT NULL,
	http_status        INTEGER NOT NULL,
	body_bytes         INTEGER NOT NULL,
	-- QUIC only (NULL over TCP): datagrams and bytes each way before the handshake was
	-- done, the client's first flight, a Retry seen, and whether the server's handshake
	-- bytes passed 3x that first flight (docs/tls.md)
	quic_tx_dgrams     INTEGER,
	quic_rx_dgrams     INTEGER,
	quic_tx_bytes      INTEGER,
	quic_rx_bytes      INTEGER,
	quic_first_dgrams  INTEGER,
	quic_first_bytes   INTEGER,
	quic_retry         INTEGER,
	quic_amp_held      INTEGER,
	-- how long the client's thread waited, runnable, for a CPU during this connection
	-- (start to end, schedstat's run_delay); NULL unknown
	client_wait_us     REAL,
	-- Chromium's only (NULL for pqtls's own): from the browser's NetLog, from the start,
	-- the network-only times beside the browser's own (the last bytes of the server's
	-- first flight received, the request's bytes sent, the first response bytes
	-- received), its certificate verification's length, and how many sockets it
	-- connected to the server for the navigation (load/netlog.h)
	browser_flight_us  REAL,
	browser_verify_us  REAL,
	browser_request_net_us REAL,
	browser_ttfb_net_us REAL,
	browser_conns      INTEGER,
	error_kind         TEXT NOT NULL,
	error_detail       TEXT,
	PRIMARY KEY (cell_id, conn_index)
) WITHOUT ROWID;

CREATE INDEX cell_run ON cell(run_id);
CREATE INDEX cell_arm ON cell(arm, rtt_us);

-- Every connection with its cell's parameters: the table most questions start from.
-- Each "@DIMS" mark (here and below) is filled from src/exp/dim.c's table when the file is
-- made (pq_dim_columns_each), so every dimension column is in every view: '$' is the
-- column, '%' its name in the view (a cell column conn has too is NAME_asked:
-- tls_group_asked is the group the cell asked for, tls_group the one the connection got).
CREATE VIEW conn_cell AS
SELECT c.cell_key, c.point_key, c.link_key, c.host_name, c.run_id, c.trial, c.arm,
       @DIMS conn: c.$ AS %, @
       c.chain_desc, c.chain_der_bytes, c.cert_msg_bytes, c.first_flight_bytes, c.first_flight_segs,
       c.response_bytes, c.status AS cell_status, n.*,
       -- Chromium's first byte split once, here: the network's part (its first flight in,
       -- then one request's round trip), and the rest of ttfb_us in three parts that sum
       -- to it: certificate verification, the request's dispatch (verification's end to
       -- the request's bytes sent) and reading the response (its bytes in to its headers
       -- parsed); NULL for pqtls's client
       n.browser_flight_us + n.browser_ttfb_net_us - n.browser_request_net_us AS browser_ttfb_network_us,
       n.browser_request_net_us - n.browser_flight_us - n.browser_verify_us AS browser_dispatch_us,
       n.ttfb_us - n.browser_ttfb_net_us AS browser_read_us
FROM conn n JOIN cell c USING (cell_id);

-- Per cell: the median and p95 of the main phases over its successful connections, by
-- pqtls's one percentile definition (src/stats/sample.h; the report computes the same
-- double): linear interpolation between closest ranks (numpy's, pandas', R's and DuckDB's
-- quantile_cont default), with h = (n - 1) * p / 1000 split into its integer part and
-- remainder by integer arithmetic. n counts the phase's non-NULL values; SQLite 3.40 has
-- no percentile function, hence window row numbers (NULLs sorted last). That SQL is
-- written once, in src/exp/pctsql.c, and fills the marks of both views: a PCT_PARTS mark
-- (column, its row number, its count, p per mille) the ranks either side of h and its
-- remainder, a PCT mark (column, p) the interpolation between them.
CREATE VIEW cell_stats AS
WITH ok AS (
	SELECT cell_id, connect_us, handshake_us, ttfb_us, ttlb_us,
	       ROW_NUMBER() OVER (PARTITION BY cell_id ORDER BY connect_us NULLS LAST) AS r_cn,
	       COUNT(connect_us) OVER (PARTITION BY cell_id) AS n_cn,
	       ROW_NUMBER() OVER (PARTITION BY cell_id ORDER BY handshake_us NULLS LAST) AS r_hs,
	       COUNT(handshake_us) OVER (PARTITION BY cell_id) AS n_hs,
	       ROW_NUMBER() OVER (PARTITION BY cell_id ORDER BY ttfb_us NULLS LAST) AS r_fb,
	       COUNT(ttfb_us) OVER (PARTITION BY cell_id) AS n_fb,
	       ROW_NUMBER() OVER (PARTITION BY cell_id ORDER BY ttlb_us NULLS LAST) AS r_lb,
	       COUNT(ttlb_us) OVER (PARTITION BY cell_id) AS n_lb
	FROM conn WHERE error_kind = 'ok'
), agg AS (
	SELECT cell_id,
	       @PCT_PARTS connect_us r_cn n_cn 500@,
	       @PCT_PARTS handshake_us r_hs n_hs 500@,
	       @PCT_PARTS handshake_us r_hs n_hs 950@,
	       @PCT_PARTS ttfb_us r_fb n_fb 500@,
	       @PCT_PARTS ttfb_us r_fb n_fb 950@,
	       @PCT_PARTS ttlb_us r_lb n_lb 500@,
	       @PCT_PARTS ttlb_us r_lb n_lb 950@
	FROM ok GROUP BY cell_id
)
SELECT c.cell_id, c.cell_key, c.point_key, c.host_name, c.arm, c.trial, c.link_key, @DIMS c.$, @
       c.response_bytes, c.status, c.conns_ok, c.conns_failed, c.link_ok, c.host_ok, c.link_late_p99_us,
       c.host_steal_pct,
       @PCT a.connect_us 500@ AS connect_p50_us,
       @PCT a.handshake_us 500@ AS handshake_p50_us,
       @PCT a.handshake_us 950@ AS handshake_p95_us,
       @PCT a.ttfb_us 500@ AS ttfb_p50_us,
       @PCT a.ttfb_us 950@ AS ttfb_p95_us,
       @PCT a.ttlb_us 500@ AS ttlb_p50_us,
       @PCT a.ttlb_us 950@ AS ttlb_p95_us
FROM cell c LEFT JOIN agg a USING (cell_id);

-- Per grid point (all trials pooled; one host): every dimension column (the trials of a
-- grid point share their values; MIN picks one), the median and p95 over every successful
-- connection of every trial (the same definition as cell_stats), and the failure count.
-- pqtls report's key table shows these numbers (tests/integration/report_views.sh).
CREATE VIEW arm_stats AS
WITH ok AS (
	SELECT c.host_name, c.point_key, n.handshake_us, n.ttfb_us, n.ttlb_us, COUNT(*) OVER w AS n,
	       ROW_NUMBER() OVER (w ORDER BY n.handshake_us NULLS LAST) AS r_hs, COUNT(n.handshake_us) OVER w AS n_hs,
	       ROW_NUMBER() OVER (w ORDER BY n.ttfb_us NULLS LAST) AS r_fb, COUNT(n.ttfb_us) OVER w AS n_fb,
	       ROW_NUMBER() OVER (w ORDER BY n.ttlb_us NULLS LAST) AS r_lb, COUNT(n.ttlb_us) OVER w AS n_lb
	FROM conn n JOIN cell c USING (cell_id) WHERE n.error_kind = 'ok'
	WINDOW w AS (PARTITION BY c.host_name, c.point_key)
), agg AS (
	SELECT host_name, point_key, MAX(n) AS conns_ok,
	       @PCT_PARTS handshake_us r_hs n_hs 500@,
	       @PCT_PARTS handshake_us r_hs n_hs 950@,
	       @PCT_PARTS ttfb_us r_fb n_fb 500@,
	       @PCT_PARTS ttfb_us r_fb n_fb 950@,
	       @PCT_PARTS ttlb_us r_lb n_lb 500@,
	       @PCT_PARTS ttlb_us r_lb n_lb 950@
	FROM ok GROUP BY host_name, point_key
), pts AS (
	SELECT host_name, point_key, MIN(arm) AS arm, MIN(link_key) AS link_key, @DIMS MIN($) AS $, @
	       MIN(chain_der_bytes) AS chain_der_bytes, MIN(response_bytes) AS response_bytes,
	       COUNT(*) AS cells, SUM(conns_failed) AS conns_failed
	FROM cell GROUP BY host_name, point_key
)
SELECT p.host_name, p.point_key, p.arm, p.link_key, @DIMS p.$, @
       p.chain_der_bytes, p.response_bytes, p.cells, COALESCE(a.conns_ok, 0) AS conns_ok,
       p.conns_failed,
       @PCT a.handshake_us 500@ AS handshake_p50_us,
       @PCT a.handshake_us 950@ AS handshake_p95_us,
       @PCT a.ttfb_us 500@ AS ttfb_p50_us,
       @PCT a.ttfb_us 950@ AS ttfb_p95_us,
       @PCT a.ttlb_us 500@ AS ttlb_p50_us,
       @PCT a.ttlb_us 950@ AS ttlb_p95_us
FROM pts p LEFT JOIN agg a USING (host_name, point_key);


