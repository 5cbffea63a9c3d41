package permit

import (
	"io/fs"
	"path"
	"strings"
)

// Manifests name folders by glob (cargo's workspace members, npm's
// workspaces, make's $(wildcard …)): the tool builds, runs or reads what
// each match leads to, a link out of the folder too.

// maxManifestGlob bounds the matches a manifest's glob is expanded to.
const maxManifestGlob = 2000

// globOutside returns a place outside the working directory the pattern
// (relative to dir) reaches: its folder before the first glob, or a match,
// links followed; a pattern with more matches than the bound counts as
// reaching outside.
func globOutside(env Env, dir, pat string) (string, bool) {
	if !path.IsAbs(pat) {
		pat = path.Join(dir, pat)
	}
	cur := []string{"/"}
	for _, seg := range splitSegs(pat) {
		var next []string
		for _, c := range cur {
			switch {
			case seg == "**":
				next = append(next, env.subfolders(c, maxManifestGlob)...)
			case strings.ContainsAny(seg, "*?[{"):
				ents, err := env.FS.ReadDir(c)
				if err != nil {
					continue
				}
				for _, e := range ents {
					if ok, err := path.Match(seg, e.Name()); ok && err == nil {
						next = append(next, env.realPath(path.Join(c, e.Name())))
					}
				}
			default:
				next = append(next, env.realPath(path.Join(c, seg)))
			}
		}
		if len(next) > maxManifestGlob {
			return pat + " (more matches than the policy looks through)", true
		}
		cur = next
	}
	for _, p := range cur {
		if !env.inside(p) {
			return p, true
		}
	}
	return "", false
}

// subfolders are dir and the folders under it (links followed to where
// they lead, not walked into), up to max.
func (e Env) subfolders(dir string, max int) []string {
	out := []string{dir}
	for i := 0; i < len(out) && len(out) <= max; i++ {
		if !e.inside(out[i]) {
			continue // a link out: it is a match, not walked
		}
		ents, err := e.FS.ReadDir(out[i])
		if err != nil {
			continue
		}
		for _, ent := range ents {
			full := path.Join(out[i], ent.Name())
			if ent.IsDir() && ent.Name() != "node_modules" && ent.Name() != ".git" {
				out = append(out, full)
			} else if ent.Type()&fs.ModeSymlink != 0 {
				out = append(out, e.realPath(full))
			}
		}
	}
	return out
}
