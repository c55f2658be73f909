-- The results database's views (docs/results.md). Its tables are the column table's
-- (src/exp/cols.c), made by src/exp/colsql.c, which puts these views after them when a
-- file is made and makes them again when it upgrades an older file; its schema_version is
-- PQ_SCHEMA_VERSION (src/exp/rdb.h).

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
-- remainder, a PCT mark (column, p) the interpolation between them. A PCT_EACH mark is
-- those two over every key time, median and p95 (handshake_us, ttfb_us, ttlb_us: the list
-- is src/exp/colsql.c's): "parts" in the aggregate, the aggregate's alias in the SELECT,
-- which names them handshake_p50_us, handshake_p95_us and so on.
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
	       @PCT_EACH parts@
	FROM ok GROUP BY cell_id
)
SELECT c.cell_id, c.cell_key, c.point_key, c.host_name, c.arm, c.trial, c.link_key, @DIMS c.$, @
       c.response_bytes, c.status, c.conns_ok, c.conns_failed, c.link_ok, c.host_ok, c.link_late_p99_us,
       c.host_steal_pct,
       @PCT a.connect_us 500@ AS connect_p50_us,
       @PCT_EACH a@
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
	       @PCT_EACH parts@
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
       @PCT_EACH a@
FROM pts p LEFT JOIN agg a USING (host_name, point_key);


