package permit

import (
	"io/fs"
	"path"
)

// A file with more than one name (a hard link) is written and read
// under each: gitcfg.txt linked to .git/config, notes.txt to a file
// outside the folder, env-copy.txt to .env (red team 14b, finding 11; ln
// and cp -l ask, a link made before is not seen by name). Its other
// names cannot be found without searching the whole disk, so a write to
// it asks; a read asks too, since what makes .env or ~/.netrc a
// credential is its name, which the content scan does not see. Package
// folders (pnpm links node_modules to its store) and .git (clone --local
// links objects) are read freely: their files are no credentials by name
// and are judged by content as any file is.

// hardLinked reports a regular file at abs (links followed) that has
// other names; dependencies says whether package folders and .git count.
func (e Env) hardLinked(abs string, dependencies bool) bool {
	if e.FS == nil {
		return false
	}
	real := e.realPath(abs)
	fi, err := e.FS.Lstat(real)
	if err != nil || !multiLinked(fi) {
		return false
	}
	return dependencies || !inPackageDir(real)
}

// multiLinked reports a regular file with more than one name.
func multiLinked(fi fs.FileInfo) bool {
	return fi.Mode().IsRegular() && linkCount(fi) > 1
}

// inPackageDir reports a path under a package folder or .git.
func inPackageDir(p string) bool {
	for d := path.Dir(p); d != "/" && d != "."; d = path.Dir(d) {
		if b := path.Base(d); dependencyDirs[b] || b == ".git" {
			return true
		}
	}
	return false
}

// hardLinkHit is the floor hit for a write to a file with other names.
func (e Env) hardLinkHit(abs, by string) []hit {
	if !e.hardLinked(abs, true) {
		return nil
	}
	return []hit{{id: FloorProtectedFile, detail: by + " writes " + abs + ", a file with other names (a hard link): it writes them too, and they may be git's configuration, a hook or a file outside the folder"}}
}

// hardLinkRead is why reading abs counts as reading a credential: a
// file with other names, which may be .env or a key.
const hardLinkRead = " (a file with other names, a hard link: one may be a credential such as .env)"
