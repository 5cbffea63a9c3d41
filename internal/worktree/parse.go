package worktree

import (
	"strconv"
	"strings"
)

// listed is one entry of git worktree list --porcelain -z.
type listed struct {
	Path     string
	Head     string
	Branch   string // full ref, "" when detached or bare
	Bare     bool
	Prunable bool // registered, but its folder is gone
}

// parseWorktreeList reads `git worktree list --porcelain -z`: attribute
// fields each ended by NUL, entries ended by an empty field.
func parseWorktreeList(out []byte) []listed {
	var all []listed
	var cur *listed
	for _, f := range strings.Split(string(out), "\x00") {
		if f == "" {
			cur = nil
			continue
		}
		key, val, _ := strings.Cut(f, " ")
		if key == "worktree" {
			all = append(all, listed{Path: val})
			cur = &all[len(all)-1]
			continue
		}
		if cur == nil {
			continue
		}
		switch key {
		case "HEAD":
			cur.Head = val
		case "branch":
			cur.Branch = val
		case "bare":
			cur.Bare = true
		case "prunable":
			cur.Prunable = true
		}
	}
	return all
}

// parseChanges reads `git diff --raw --numstat -z`: first the raw records
// (":modes shas STATUS\0path\0", two paths for renames and copies), then
// the numstat records ("added\tremoved\tpath\0", or "added\tremoved\t\0old\0new\0"
// for renames; "-" counts for binary files). Counts join the raw record
// of the same (new) path. Malformed input yields what parsed before it.
func parseChanges(out []byte) []File {
	fields := strings.Split(string(out), "\x00")
	var files []File
	index := map[string]int{}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "":
			continue
		case f[0] == ':':
			meta := strings.Fields(f)
			if len(meta) < 5 || meta[4] == "" || i+1 >= len(fields) {
				return files
			}
			file := File{Status: meta[4][:1]}
			if file.Status == "R" || file.Status == "C" {
				if i+2 >= len(fields) {
					return files
				}
				file.OldPath, file.Path = fields[i+1], fields[i+2]
				i += 2
			} else {
				file.Path = fields[i+1]
				i++
			}
			index[file.Path] = len(files)
			files = append(files, file)
		default:
			added, rest, ok1 := strings.Cut(f, "\t")
			removed, path, ok2 := strings.Cut(rest, "\t")
			if !ok1 || !ok2 {
				return files
			}
			if path == "" { // rename: old and new follow
				if i+2 >= len(fields) {
					return files
				}
				path = fields[i+2]
				i += 2
			}
			j, ok := index[path]
			if !ok {
				continue
			}
			if added == "-" && removed == "-" {
				files[j].Binary = true
				continue
			}
			files[j].Added, _ = strconv.Atoi(added)
			files[j].Removed, _ = strconv.Atoi(removed)
		}
	}
	return files
}

// parseNUL splits NUL-terminated paths (ls-files -z, status -z names).
func parseNUL(out []byte) []string {
	var paths []string
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			paths = append(paths, p)
		}
	}
	return paths
}

// parseStatus reads `git status --porcelain -z` ("XY path\0", with the
// old path in a second field after a rename or copy) into changed paths.
func parseStatus(out []byte) []string {
	fields := strings.Split(string(out), "\x00")
	var paths []string
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 || f[2] != ' ' {
			continue
		}
		paths = append(paths, f[3:])
		if strings.ContainsAny(f[:2], "RC") {
			i++ // the old path
		}
	}
	return paths
}
