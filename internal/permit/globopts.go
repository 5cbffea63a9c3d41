package permit

import "strings"

// A glob's matches are words the program reads as it reads any other: a
// file named -ee makes sed -n p * run every line as a command, one named
// --compress-program=bash makes sort * pipe into bash, -t.git makes cp -r
// * backup/ copy into .git (red team 21a, finding 4). The files are the
// agent's to make (touch -- -ee is allowed), so a glob before -- whose
// matches include a name that starts with - is an option known only when
// it runs.

// globOptionHits: a glob that stands for a name starting with -.
func globOptionHits(c Command, cwds cwdSet, env Env) []hit {
	if env.FS == nil {
		return nil
	}
	for i, w := range c.Args {
		if w.Value == "--" && (i == 0 || !strings.HasPrefix(c.Args[i-1].Value, "-")) {
			return nil // what follows is operands to most programs (not grep -e --, where -- is -e's value)
		}
		if !w.Glob || w.Dynamic || strings.HasPrefix(w.Value, "/") {
			continue
		}
		first, _, _ := strings.Cut(w.Value, "/")
		if !strings.ContainsAny(first, "*?[") {
			continue // a literal start: -x/* is seen as written
		}
		for _, d := range cwds.dirs {
			ents, err := env.FS.ReadDir(d)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), "-") && globMatch(first, e.Name()) {
					return []hit{{id: FloorDynamicCommand, detail: w.Raw + " matches " + e.Name() + ", which the program reads as an option: put -- before the files, or ./ before the glob"}}
				}
			}
		}
	}
	return nil
}
