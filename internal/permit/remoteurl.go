package permit

import (
	"path"
	"strings"
)

// git fetch /tmp/evil asks: a local repository outside the working
// directory has hooks and a configuration of its own that can run
// programs. git fetch origin does the same when remote.origin.url is
// /tmp/evil (red team 16b, unproven: the same URL inline asked). So a
// remote named, or taken by default (git fetch, git pull, git remote
// update, git push with no name), is judged by the URL the configuration
// gives it, after the url.<base>.insteadOf rewrites, as if written inline.
// Only local addresses are judged so: a remote on a host was set by the
// human (git remote add and set-url of another host ask).

// remoteConfig is what the configuration files git reads say about
// remotes: their URLs, groups, the branches' remotes and the rewrites.
type remoteConfig struct {
	urls, pushURLs map[string][]string // remote name: its url (pushurl) values
	groups         map[string]string   // remotes.<group>
	values         map[string]string   // the last value of every other key (branch.x.remote …)
	insteadOf      [][2]string         // {prefix, base}: a URL starting with prefix starts with base
	pushInsteadOf  [][2]string
	top            string // the work tree's top, which relative URLs start from
	head           string // the branch HEAD names
}

// readRemoteConfig reads the system's, the user's and the repository's
// configuration (in git's order: a later value wins) for the repository
// git finds from dir.
func (e Env) readRemoteConfig(dir string) (remoteConfig, bool) {
	top, cfg, ok := e.repoTop(dir)
	if !ok {
		return remoteConfig{}, false
	}
	rc := remoteConfig{urls: map[string][]string{}, pushURLs: map[string][]string{}, groups: map[string]string{},
		values: map[string]string{}, top: top}
	if b, err := e.FS.ReadFile(path.Join(path.Dir(cfg), "HEAD")); err == nil {
		rc.head, _ = strings.CutPrefix(strings.TrimSpace(string(b)), "ref: refs/heads/")
	}
	for _, f := range append(userGitConfigs(e), cfg) {
		body, err := e.FS.ReadFile(f)
		if err != nil {
			continue
		}
		for _, kv := range parseGitConfig(string(body)) {
			k, v := kv[0], kv[1]
			switch {
			case strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".url"):
				n := strings.TrimSuffix(strings.TrimPrefix(k, "remote."), ".url")
				rc.urls[n] = append(rc.urls[n], v)
			case strings.HasPrefix(k, "remote.") && strings.HasSuffix(k, ".pushurl"):
				n := strings.TrimSuffix(strings.TrimPrefix(k, "remote."), ".pushurl")
				rc.pushURLs[n] = append(rc.pushURLs[n], v)
			case strings.HasPrefix(k, "remotes."):
				rc.groups[strings.TrimPrefix(k, "remotes.")] += " " + v
			case strings.HasPrefix(k, "url.") && strings.HasSuffix(k, ".insteadof"):
				rc.insteadOf = append(rc.insteadOf, [2]string{v, strings.TrimSuffix(strings.TrimPrefix(k, "url."), ".insteadof")})
			case strings.HasPrefix(k, "url.") && strings.HasSuffix(k, ".pushinsteadof"):
				rc.pushInsteadOf = append(rc.pushInsteadOf, [2]string{v, strings.TrimSuffix(strings.TrimPrefix(k, "url."), ".pushinsteadof")})
			default:
				rc.values[k] = v
			}
		}
	}
	return rc, true
}

// rewrite applies the longest matching rewrite, as git does.
func rewrite(u string, rules [][2]string) string {
	best := -1
	for i, r := range rules {
		if strings.HasPrefix(u, r[0]) && (best < 0 || len(r[0]) > len(rules[best][0])) {
			best = i
		}
	}
	if best < 0 {
		return u
	}
	return rules[best][1] + strings.TrimPrefix(u, rules[best][0])
}

// remoteAddresses returns the addresses git uses for the remote (or
// group of remotes) named n: url rewritten by insteadOf for fetching;
// for pushing, pushurl (pushInsteadOf has no say on it) or url rewritten
// by pushInsteadOf, else insteadOf. A name that is no remote is an
// address itself: nil.
func (rc remoteConfig) remoteAddresses(n string, push bool) []string {
	if g, ok := rc.groups[n]; ok && len(rc.urls[n]) == 0 {
		var out []string
		for _, m := range strings.Fields(g) {
			if m != n {
				out = append(out, rc.remoteAddresses(m, push)...)
			}
		}
		return out
	}
	var out []string
	if push && len(rc.pushURLs[n]) > 0 {
		return rc.pushURLs[n]
	}
	for _, u := range rc.urls[n] {
		if r := rewrite(u, rc.pushInsteadOf); push && r != u {
			out = append(out, r)
			continue
		}
		out = append(out, rewrite(u, rc.insteadOf))
	}
	return out
}

// defaultRemote is the remote git fetch, pull and push use when given
// none: the branch's (for a push, its pushRemote or remote.pushDefault
// first), else origin.
func (rc remoteConfig) defaultRemote(push bool) string {
	var keys []string
	if push {
		keys = append(keys, "branch."+rc.head+".pushremote", "remote.pushdefault")
	}
	for _, k := range append(keys, "branch."+rc.head+".remote") {
		if v := rc.values[k]; v != "" && (rc.head != "" || !strings.HasPrefix(k, "branch.")) {
			return v
		}
	}
	return "origin"
}

// allRemotes lists every remote the configuration names (git fetch --all,
// git remote update).
func (rc remoteConfig) allRemotes() []string {
	var out []string
	for n := range rc.urls {
		out = append(out, n)
	}
	return out
}

// localAddress reports an address git reads as a path on this machine:
// file://, or one with no scheme and no host: before its first slash.
func localAddress(u string) bool {
	if strings.HasPrefix(u, "file://") {
		return true
	}
	if strings.Contains(u, "::") || strings.Contains(u, "://") {
		return false
	}
	host, _, scp := strings.Cut(u, ":")
	return !scp || strings.Contains(host, "/")
}

// remoteURLHits judges the remotes git fetch, pull, push, ls-remote and
// remote update reach by name (or by default) by their local addresses.
func remoteURLHits(g gitInfo, cwds cwdSet, env Env) []hit {
	ops, opts := operands(g.args)
	push := g.sub == "push"
	var names []string
	switch g.sub {
	case "fetch", "pull", "push", "ls-remote":
		switch {
		case g.sub == "fetch" && hasLong(opts, "--all"):
			names = nil // every remote, below
		case g.sub == "fetch" && hasLong(opts, "--multiple"):
			for _, o := range ops {
				names = append(names, o.Value)
			}
		case len(ops) > 0:
			names = []string{ops[0].Value}
		default:
			names = []string{""}
		}
	case "remote":
		if len(ops) == 0 || ops[0].Value != "update" {
			return nil
		}
		for _, o := range ops[1:] {
			names = append(names, o.Value)
		}
	default:
		return nil
	}
	if env.FS == nil || cwds.unknown {
		return nil
	}
	for _, o := range ops {
		if o.Dynamic {
			return nil // judged as an address known only when it runs
		}
	}
	var hs []hit
	for _, d := range cwds.dirs {
		rc, ok := env.readRemoteConfig(d)
		if !ok {
			continue
		}
		ns := names
		if len(ns) == 0 {
			ns = rc.allRemotes()
		}
		base := cwdSet{env: env, dirs: []string{rc.top}}
		for _, n := range ns {
			if n == "" {
				n = rc.defaultRemote(push)
			}
			for _, u := range rc.remoteAddresses(n, push) {
				if localAddress(u) {
					hs = append(hs, localRepoHits("git "+g.sub+" "+n+" (its address is "+u+")", u, base, env)...)
				}
			}
		}
	}
	return hs
}
