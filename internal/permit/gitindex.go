package permit

import (
	"encoding/binary"
	"path"
	"strings"
)

// indexStat is what git's index keeps of a tracked file to tell whether
// it changed: its size and modification time.
type indexStat struct {
	size       uint32
	sec, nsec  uint32
	racySec    uint32 // the index file's own time: a file as new as it may have changed unseen
	racyNsec   uint32
	hasRacyRef bool
}

// maxIndexEntries bounds the entries read from an index.
const maxIndexEntries = 500000

// readIndex reads the stat data of git's index (versions 2 to 4) at
// file, keyed by the path from the work tree's top; false when it cannot
// be read (then every tracked file counts as changed).
func (e Env) readIndex(file string, hashLen int) (map[string]indexStat, bool) {
	fi, err := e.FS.Lstat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	data, err := e.readHead(file, int(min(fi.Size(), 256<<20)))
	if err != nil || len(data) < 12 || string(data[:4]) != "DIRC" {
		return nil, false
	}
	ver := binary.BigEndian.Uint32(data[4:8])
	n := binary.BigEndian.Uint32(data[8:12])
	if ver < 2 || ver > 4 || n > maxIndexEntries {
		return nil, false
	}
	ms := fi.ModTime()
	out := make(map[string]indexStat, n)
	off := 12
	prev := ""
	fixed := 40 + hashLen + 2 // ctime, mtime, dev, ino, mode, uid, gid, size; hash; flags
	for i := uint32(0); i < n; i++ {
		if off+fixed > len(data) {
			return nil, false
		}
		ent := data[off:]
		st := indexStat{sec: binary.BigEndian.Uint32(ent[8:12]), nsec: binary.BigEndian.Uint32(ent[12:16]),
			size: binary.BigEndian.Uint32(ent[36:40]), racySec: uint32(ms.Unix()), racyNsec: uint32(ms.Nanosecond()), hasRacyRef: true}
		flags := binary.BigEndian.Uint16(ent[40+hashLen:])
		p := fixed
		if ver >= 3 && flags&0x4000 != 0 {
			p += 2
		}
		var name string
		if ver == 4 {
			strip, k := 0, 0
			for { // git's offset varint
				if p+k >= len(ent) {
					return nil, false
				}
				c := ent[p+k]
				k++
				strip = strip | int(c&0x7f)
				if c&0x80 == 0 {
					break
				}
				strip = (strip + 1) << 7
			}
			p += k
			end := indexNul(ent, p)
			if end < 0 || strip > len(prev) {
				return nil, false
			}
			name = prev[:len(prev)-strip] + string(ent[p:end])
			off += end + 1
		} else {
			end := indexNul(ent, p)
			if end < 0 {
				return nil, false
			}
			name = string(ent[p:end])
			off += (end + 8) &^ 7
		}
		prev = name
		out[name] = st
	}
	return out, true
}

func indexNul(b []byte, from int) int {
	for i := from; i < len(b); i++ {
		if b[i] == 0 {
			return i
		}
	}
	return -1
}

// trackedIndex returns the stat data of the index of the repository
// holding dir, and the work tree's top.
func (e Env) trackedIndex(dir string) (map[string]indexStat, string, bool) {
	if e.FS == nil {
		return nil, "", false
	}
	top, cfg, ok := e.repoTop(dir)
	if !ok {
		return nil, "", false
	}
	hashLen := 20
	if body, err := e.FS.ReadFile(cfg); err == nil {
		for _, kv := range parseGitConfig(string(body)) {
			if kv[0] == "extensions.objectformat" && strings.EqualFold(kv[1], "sha256") {
				hashLen = 32
			}
		}
	}
	idx, ok := e.readIndex(path.Join(path.Dir(cfg), "index"), hashLen)
	return idx, top, ok
}

// unchanged reports a file whose stat data is the index's (and not as new
// as the index itself): git takes its content to be the staged one.
func (e Env) unchanged(idx map[string]indexStat, top, abs string) bool {
	rel, ok := strings.CutPrefix(abs, top+"/")
	if !ok || idx == nil {
		return false
	}
	st, ok := idx[rel]
	if !ok {
		return false
	}
	fi, err := e.FS.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	mt := fi.ModTime()
	if uint32(fi.Size()) != st.size || uint32(mt.Unix()) != st.sec || uint32(mt.Nanosecond()) != st.nsec {
		return false
	}
	if st.hasRacyRef && (st.sec > st.racySec || st.sec == st.racySec && st.nsec >= st.racyNsec) {
		return false // racily clean: git would look at the content
	}
	return true
}
