package permit

import (
	"io/fs"
	"path"
	"strings"
)

// maxLanded bounds how many entries of a copied or moved folder are
// looked at; a bigger tree is judged by what was seen.
const maxLanded = 4000

// landingHits judges where the files of a copy, move or link land: a
// protected file reached through a folder (cp -r kit/. . when kit holds
// .vscode/tasks.json), a protected file given a second name (a hard link
// is the file itself), a relative symbolic link moved to where it points
// out of the working directory, and, for mv, a protected file taken away.
func landingHits(v view, srcs []Word, dest *Word, opts []string, cwds cwdSet, env Env) []hit {
	var hs []hit
	hard := v.name == "link" || v.name == "ln" && !makesSymlinks(v.name, opts) ||
		v.name == "cp" && (hasShort(opts, "l") || hasLong(opts, "--link"))
	keepLinks := v.name == "mv" || v.name == "rsync" && (hasShort(opts, "al") || hasLong(opts, "--links", "--archive")) ||
		v.name == "cp" && !hasShort(opts, "LH") && !hasLong(opts, "--dereference") &&
			(hasShort(opts, "rRadP") || hasLong(opts, "--recursive", "--archive", "--no-dereference"))
	var destAbs []string
	if dest != nil {
		destAbs, _ = cwds.resolve(*dest)
	}
	for _, s := range srcs {
		if s.Dynamic || s.Glob {
			continue
		}
		for _, src := range cwds.unfollowed(s) {
			if hard || v.name == "mv" {
				by := v.name + " takes away"
				if hard {
					by = v.name + " makes a second name for"
				}
				if h := env.treeProtected(src, by); h != nil {
					hs = append(hs, *h)
				}
			}
			for _, d := range destAbs {
				for _, root := range landingRoots(v.name, s.Value, src, d, env) {
					if h := env.landed(src, root, keepLinks, v.name); h != nil {
						hs = append(hs, *h)
					}
				}
			}
		}
	}
	return hs
}

// landingRoots returns where a source lands: in the destination folder
// under its own name, or as the destination itself (cp -r kit/. dst,
// rsync's kit/ dst, or a destination that is not a folder yet). Both are
// judged when unsure. Only rsync reads a trailing slash as "what is in
// it": cp -r kit/.vscode/ . made ./.vscode (red team 19a, finding 11).
func landingRoots(by, raw, src, dest string, env Env) []string {
	if strings.HasSuffix(raw, "/.") || by == "rsync" && strings.HasSuffix(raw, "/") && raw != "/" {
		return []string{dest}
	}
	if env.FS != nil {
		if fi, err := env.FS.Lstat(dest); err != nil || !fi.IsDir() {
			return []string{dest}
		}
	}
	return []string{path.Join(dest, path.Base(src)), dest}
}

// landed walks the source and judges each entry at its new place.
func (e Env) landed(src, root string, keepLinks bool, by string) *hit {
	if why, ok := e.protectedFile(root); ok {
		return &hit{id: FloorProtectedFile, detail: by + " writes " + root + " (" + why + ")"}
	}
	if e.FS == nil {
		return nil
	}
	var found *hit
	e.walk(src, func(rel string, d fs.DirEntry, isLink bool) bool {
		at := path.Join(root, rel)
		if why, ok := e.protectedFile(at); ok {
			found = &hit{id: FloorProtectedFile, detail: by + " writes " + at + " (" + why + ")"}
			return false
		}
		if isLink && keepLinks {
			if h := e.movedLink(path.Join(src, rel), at, by); h != nil {
				found = h
				return false
			}
		}
		return true
	})
	return found
}

// movedLink judges a symbolic link copied or moved to at: a relative
// target is taken from the link's new folder, so it can come to point out
// of the working directory.
func (e Env) movedLink(from, at, by string) *hit {
	target, err := e.FS.Readlink(from)
	if err != nil || path.IsAbs(target) {
		return nil // an absolute target means the same thing anywhere
	}
	was, now := e.realPath(path.Join(path.Dir(from), target)), e.realPath(path.Join(path.Dir(at), target))
	if !e.inside(now) && e.inside(was) {
		return &hit{id: FloorWriteOutside, detail: by + " puts the link " + from + " (to " + target + ") at " + at + ", where it leads to " + now + ", out of the working directory"}
	}
	return nil
}

// treeProtected reports the first protected file at or under abs.
func (e Env) treeProtected(abs, by string) *hit {
	if why, ok := e.protectedFile(abs); ok {
		return &hit{id: FloorProtectedFile, detail: by + " " + abs + " (" + why + ")"}
	}
	var found *hit
	e.walk(abs, func(rel string, _ fs.DirEntry, _ bool) bool {
		at := path.Join(abs, rel)
		if why, ok := e.protectedFile(at); ok {
			found = &hit{id: FloorProtectedFile, detail: by + " " + at + " (" + why + ")"}
		}
		return found == nil
	})
	return found
}

// walk calls fn for abs itself (rel "") and every entry under it, without
// following symbolic links, until fn returns false or maxLanded entries.
func (e Env) walk(abs string, fn func(rel string, d fs.DirEntry, isLink bool) bool) {
	if e.FS == nil {
		return
	}
	fi, err := e.FS.Lstat(abs)
	if err != nil {
		return
	}
	if !fn("", nil, fi.Mode()&fs.ModeSymlink != 0) || !fi.IsDir() {
		return
	}
	seen := 0
	queue := []string{""}
	for len(queue) > 0 && seen < maxLanded {
		rel := queue[0]
		queue = queue[1:]
		ents, err := e.FS.ReadDir(path.Join(abs, rel))
		if err != nil {
			continue
		}
		for _, d := range ents {
			if seen++; seen > maxLanded {
				return
			}
			r := path.Join(rel, d.Name())
			if !fn(r, d, d.Type()&fs.ModeSymlink != 0) {
				return
			}
			if d.IsDir() {
				queue = append(queue, r)
			}
		}
	}
}

// unfollowed returns the absolute paths a word names with every link
// on the way followed except a final one: the entry a move or copy
// takes, which may itself be a link.
func (s cwdSet) unfollowed(w Word) []string {
	v := strings.TrimRight(w.Value, "/")
	base := path.Base(v)
	if v == "" || v == "~" || base == "." || base == ".." || base == "/" {
		abs, _ := s.resolve(w)
		return abs
	}
	dir := path.Dir(v)
	pw := Word{Raw: dir, Value: dir, Tilde: w.Tilde}
	abs, ok := s.resolve(pw)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(abs))
	for _, a := range abs {
		out = append(out, path.Join(a, base))
	}
	return out
}
