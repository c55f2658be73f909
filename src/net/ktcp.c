#include "net/ktcp.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/buf.h"
#include "net/sh.h"

void pq_ktcp_cfg_init(pq_ktcp_cfg *c)
{
	*c = (pq_ktcp_cfg){.pacing_ss_ratio = -1, .pacing_ca_ratio = -1, .quickack = PQ_KTCP_KEEP,
			   .tso = PQ_KTCP_KEEP, .gso = PQ_KTCP_KEEP};
}

int pq_ktcp_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	if (!n)
		return 0;
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ' || p[-1] == '|') && (p[n] == ' ' || p[n] == '|' || p[n] == '\0' || p[n] == '\n'))
			return 1;
	return 0;
}

static int check_ratio(int v, const char *what, pq_diag *d)
{
	if (v < -1 || v > PQ_KTCP_RATIO_MAX)
		return pq_diag_set(d, PQ_ERANGE, "%s: %d%% is out of range (accepted: 0%% to %d%% of cwnd/srtt)",
				   what, v, PQ_KTCP_RATIO_MAX);
	return 0;
}

int pq_ktcp_cfg_check(const pq_ktcp_cfg *c, const pq_name *names, pq_diag *d)
{
	if (c->qdisc[0] && !pq_ktcp_in_list(PQ_KTCP_QDISCS, c->qdisc))
		return pq_diag_set(d, PQ_EINVAL, "%s: '%s' is not a qdisc pqtls sets (accepted: %s)",
				   pq_name_of(names, "qdisc"), c->qdisc, PQ_KTCP_QDISCS);
	int rc = check_ratio(c->pacing_ss_ratio, pq_name_of(names, "pacing_ss_ratio"), d);
	if (!rc)
		rc = check_ratio(c->pacing_ca_ratio, pq_name_of(names, "pacing_ca_ratio"), d);
	return rc;
}

int pq_ktcp_validate(const pq_ktcp_cfg *c, const char *cc, const pq_ktcp_caps *caps, const pq_name *names,
		     pq_diag *d)
{
	if (cc && cc[0] && !pq_ktcp_in_list(caps->cc, cc))
		return pq_diag_set(d, PQ_EUNSUPPORTED,
				   "%s: this kernel has no congestion control '%s' (it offers: %s, in %s)",
				   pq_name_of(names, "cc"), cc, caps->cc, PQ_KTCP_CC_LIST);
	int rc = pq_ktcp_cfg_check(c, names, d);
	if (rc)
		return rc;
	if (c->qdisc[0] && !pq_ktcp_in_list(caps->qdiscs, c->qdisc))
		return pq_diag_set(d, PQ_EUNSUPPORTED, "%s: this kernel has no '%s' qdisc (it offers: %s)",
				   pq_name_of(names, "qdisc"), c->qdisc, caps->qdiscs);
	return 0;
}

/* Appends ", qdisc fq, pacing 200%/120%, quickack on, tso off, gso off" for what is set. */
void pq_ktcp_cfg_describe(const pq_ktcp_cfg *c, char *buf, size_t n)
{
	size_t len = strlen(buf);
	if (c->qdisc[0] && len < n)
		len += (size_t)snprintf(buf + len, n - len, ", qdisc %s", c->qdisc);
	if (c->pacing_ss_ratio >= 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, ", pacing %d%% in slow start", c->pacing_ss_ratio);
	if (c->pacing_ca_ratio >= 0 && len < n)
		len += (size_t)snprintf(buf + len, n - len, ", pacing %d%% after it", c->pacing_ca_ratio);
	const char *what[3] = {"quickack", "tso", "gso"};
	const int v[3] = {c->quickack, c->tso, c->gso};
	for (int i = 0; i < 3; i++)
		if (v[i] != PQ_KTCP_KEEP && len < n)
			len += (size_t)snprintf(buf + len, n - len, ", %s %s", what[i], v[i] ? "on" : "off");
}

static int read_text(const char *path, char *buf, size_t n, pq_diag *d)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return pq_diag_set(d, -errno, "cannot read %s: %s", path, strerror(errno));
	size_t got = fread(buf, 1, n - 1, f);
	fclose(f);
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int pq_ktcp_caps_read(pq_ktcp_caps *caps, const char *ns, pq_diag *d)
{
	memset(caps, 0, sizeof *caps);
	int rc = read_text(PQ_KTCP_CC_LIST, caps->cc, sizeof caps->cc, d);
	if (!rc)
		rc = read_text("/proc/sys/net/ipv4/tcp_congestion_control", caps->cc_default, sizeof caps->cc_default, d);
	char kinds[] = PQ_KTCP_QDISCS, *save = NULL;
	size_t len = 0;
	for (char *k = ns ? strtok_r(kinds, "|", &save) : NULL; k && !rc; k = strtok_r(NULL, "|", &save)) {
		char *add[] = {"tc", "-n", (char *)ns, "qdisc", "replace", "dev", "lo", "root", k, NULL};
		char *del[] = {"tc", "-n", (char *)ns, "qdisc", "del", "dev", "lo", "root", NULL};
		pq_diag ignore;
		if (pq_sh_run(add, NULL, NULL, &ignore))
			continue; /* "Specified qdisc kind is unknown", or it cannot be the root */
		if (pq_sh_run(del, NULL, NULL, &ignore)) {
			/* noqueue cannot be deleted; the scratch namespace goes anyway */
		}
		len += (size_t)snprintf(caps->qdiscs + len, sizeof caps->qdiscs - len, "%s%s", len ? " " : "", k);
	}
	return rc;
}

int pq_ktcp_parse_qdisc(const char *tc_out, char *kind, size_t n)
{
	/* Lines "qdisc KIND HANDLE: root ..." or "... parent ..."; the root one is the kind. */
	for (const char *line = tc_out; *line;) {
		size_t len = strcspn(line, "\n");
		char k[32];
		const char *root = strstr(line, " root ");
		if (sscanf(line, "qdisc %31s", k) == 1 && root && (size_t)(root - line) < len) {
			snprintf(kind, n, "%s", k);
			return 0;
		}
		line += len + (line[len] == '\n');
	}
	return PQ_EPARSE;
}

unsigned pq_ktcp_parse_route_metric(const char *ip_out, const char *metric)
{
	char pat[40];
	snprintf(pat, sizeof pat, " %s ", metric);
	const char *p = strstr(ip_out, pat);
	return p ? (unsigned)strtoul(p + strlen(pat), NULL, 10) : 0;
}

void pq_ktcp_state_format(const pq_ktcp_state *s, char *buf, size_t n)
{
	static const char *const onoff[] = {"off", "on"};
	snprintf(buf, n,
		 "cc %s, initcwnd %u, mss %u, pacing rate %.1f kB/s, qdisc %s, pacing %d%%/%d%% (slow start/after), "
		 "quickack %d, tso %s/%s, gso %s/%s (client/server), client rwnd %u (tcp_rmem %d %d %d)",
		 s->cc, s->initcwnd, s->mss, (double)s->pacing_bps / 1e3, s->qdisc, s->pacing_ss_ratio, s->pacing_ca_ratio, s->quickack,
		 onoff[s->tso[0] != 0], onoff[s->tso[1] != 0], onoff[s->gso[0] != 0], onoff[s->gso[1] != 0],
		 s->client_rwnd, s->client_rmem[0], s->client_rmem[1], s->client_rmem[2]);
}

static int ethtool(int fd, const char *dev, struct ethtool_value *ev)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", dev);
	ifr.ifr_data = (void *)ev;
	return ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

static int set_one(int fd, const char *dev, unsigned cmd, int on, const char *what, pq_diag *d)
{
	if (on == PQ_KTCP_KEEP)
		return 0;
	struct ethtool_value ev = {.cmd = cmd, .data = (unsigned)on};
	int rc = ethtool(fd, dev, &ev);
	if (rc == -EOPNOTSUPP || rc == -EINVAL)
		return pq_diag_set(d, PQ_EUNSUPPORTED, "%s %s: the link device %s cannot change it (accepted here: "
				   "leave it as the device has it)", what, on ? "on" : "off", dev);
	if (rc)
		return pq_diag_set(d, rc, "%s %s on %s: %s", what, on ? "on" : "off", dev, strerror(-rc));
	return 0;
}

int pq_ktcp_offload_set(const char *dev, int tso, int gso, pq_diag *d)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pq_diag_set(d, -errno, "cannot open a socket for ethtool: %s", strerror(errno));
	int rc = set_one(fd, dev, ETHTOOL_STSO, tso, "tso", d);
	if (!rc)
		rc = set_one(fd, dev, ETHTOOL_SGSO, gso, "gso", d);
	int t, g;
	/* A device may take the request and keep the feature off (it lacks the hardware
	 * side): read back, and say so rather than record what was asked. */
	if (!rc && (tso != PQ_KTCP_KEEP || gso != PQ_KTCP_KEEP) && !(rc = pq_ktcp_offload_get(dev, &t, &g, d)) &&
	    ((tso != PQ_KTCP_KEEP && t != tso) || (gso != PQ_KTCP_KEEP && g != gso)))
		rc = pq_diag_set(d, PQ_EUNSUPPORTED,
				 "tso/gso: the link device %s was asked tso %s, gso %s and kept tso %s, gso %s (a "
				 "device without the offload keeps it off; accepted here: what it kept)",
				 dev, tso == PQ_KTCP_KEEP ? "as is" : tso ? "on" : "off",
				 gso == PQ_KTCP_KEEP ? "as is" : gso ? "on" : "off", t ? "on" : "off", g ? "on" : "off");
	close(fd);
	return rc;
}

int pq_ktcp_offload_get(const char *dev, int *tso, int *gso, pq_diag *d)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return pq_diag_set(d, -errno, "cannot open a socket for ethtool: %s", strerror(errno));
	struct ethtool_value t = {.cmd = ETHTOOL_GTSO}, g = {.cmd = ETHTOOL_GGSO};
	int rc = ethtool(fd, dev, &t);
	if (!rc)
		rc = ethtool(fd, dev, &g);
	close(fd);
	if (rc)
		return pq_diag_set(d, rc, "cannot read the offloads of %s (ethtool): %s", dev, strerror(-rc));
	*tso = t.data != 0;
	*gso = g.data != 0;
	return 0;
}

int pq_ktcp_read_int_fd(int fd, int *v)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return n < 0 ? -errno : PQ_EPARSE;
	buf[n] = '\0';
	char *end;
	long x = strtol(buf, &end, 10);
	if (end == buf)
		return PQ_EPARSE;
	*v = (int)x;
	return 0;
}

int pq_ktcp_parse_ints(const char *text, int *v, size_t n)
{
	const char *p = text;
	for (size_t i = 0; i < n; i++) {
		char *end;
		long x = strtol(p, &end, 10);
		if (end == p || x < INT_MIN || x > INT_MAX)
			return PQ_EPARSE;
		v[i] = (int)x;
		p = end;
	}
	p += strspn(p, " \t\n");
	return *p ? PQ_EPARSE : 0;
}
