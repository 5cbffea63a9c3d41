package permit

import (
	"io/fs"
	"path"
	"strings"
	"sync"
)

// Commit, tag and note messages and reflog entries are printed by git
// log (every format), shortlog, reflog, tag -n, branch -v and stash list;
// a token written in one is printed as a committed file's would be (red
// team 14b, finding 8: git log printed "deploy: use token ghp_…", git tag
// -n9 a tag's AWS key). One git log of the messages of every commit
// reachable from a ref or the reflog, with every notes ref's notes, and
// the annotated tags' messages, cached as HistorySecrets is.

// historyMessageLister is an FS that can tell whether a repository's
// messages hold a key or token (OSFS runs git, bounded).
type historyMessageLister interface {
	// HistoryMessages says which kind of message holds one ("" for none).
	HistoryMessages(gitDir string) (string, error)
}

var historyMessageCache struct {
	sync.Mutex
	m map[string]historyEntry
}

// maxLogScan bounds the reflog text read from the repository's folder.
const maxLogScan = 16 << 20

// HistoryMessages scans the messages (same guards and time limit as
// HistoryNames). A history too long for the limit is an error.
func (o OSFS) HistoryMessages(gitDir string) (string, error) {
	key := refsFingerprint(gitDir)
	historyMessageCache.Lock()
	if e, ok := historyMessageCache.m[gitDir]; ok && e.key == key {
		historyMessageCache.Unlock()
		return strings.Join(e.names, ""), nil
	}
	historyMessageCache.Unlock()
	found, err := o.scanMessages(gitDir)
	if err != nil {
		return "", err
	}
	historyMessageCache.Lock()
	if historyMessageCache.m == nil {
		historyMessageCache.m = map[string]historyEntry{}
	}
	historyMessageCache.m[gitDir] = historyEntry{key: key, names: []string{found}}
	historyMessageCache.Unlock()
	return found, nil
}

func (o OSFS) scanMessages(gitDir string) (string, error) {
	out, err := runGit(o.Isolate, gitDir, "", "log", "--all", "--reflog", "--notes=*", "--format=%B%n%N", "--no-color")
	if err != nil {
		return "", err
	}
	if len(out) > maxPatchScan {
		return "", errTooMany
	}
	if valueSecret(out) {
		return "a commit message or note", nil
	}
	tags, err := runGit(o.Isolate, gitDir, "", "for-each-ref", "--format=%(contents)", "refs/tags")
	if err != nil {
		return "", err
	}
	if valueSecret(tags) {
		return "a tag message", nil
	}
	if reflogSecret(o, path.Join(gitDir, "logs")) {
		return "a reflog entry", nil
	}
	return "", nil
}

// reflogSecret reports a reflog entry whose message (after the tab) holds
// a key or token; a folder of logs too large to read counts as one.
func reflogSecret(o OSFS, dir string) bool {
	left := maxLogScan
	var walk func(d string) bool
	walk = func(d string) bool {
		ents, err := o.ReadDir(d)
		if err != nil {
			return false
		}
		for _, e := range ents {
			p := path.Join(d, e.Name())
			if e.IsDir() {
				if walk(p) {
					return true
				}
				continue
			}
			if e.Type()&fs.ModeType != 0 {
				continue
			}
			b, err := o.ReadHead(p, left+1)
			if err != nil {
				continue
			}
			if left -= len(b); left < 0 {
				return true
			}
			var msgs strings.Builder
			for _, l := range strings.Split(string(b), "\n") {
				if _, m, ok := strings.Cut(l, "\t"); ok {
					msgs.WriteString(m)
					msgs.WriteByte('\n')
				}
			}
			if valueSecret(msgs.String()) {
				return true
			}
		}
		return false
	}
	return walk(dir)
}

// gitPrintsMessages reports a git command that prints commit, tag, note
// or reflog messages.
func gitPrintsMessages(g gitInfo) bool {
	ops, opts := operands(g.args)
	switch g.sub {
	case "log", "show", "shortlog", "whatchanged", "cherry", "show-branch":
		return true
	case "rev-list":
		return hasLong(opts, "--format", "--pretty", "--header", "--oneline")
	case "reflog":
		return len(ops) == 0 || ops[0].Value == "show" || !reflogVerbs[ops[0].Value]
	case "tag":
		for _, o := range opts {
			if strings.HasPrefix(o, "-n") || strings.HasPrefix(o, "--format") || o == "--column" {
				return true
			}
		}
	case "branch":
		return hasShort(opts, "v") || hasLong(opts, "--verbose", "--format")
	case "stash":
		return len(ops) > 0 && (ops[0].Value == "list" || ops[0].Value == "show")
	case "notes":
		return len(ops) > 0 && ops[0].Value == "show"
	case "for-each-ref":
		for _, o := range opts {
			if strings.HasPrefix(o, "--format") {
				return true
			}
		}
	}
	return false
}

// reflogVerbs are git reflog's subcommands that print no entry.
var reflogVerbs = setOf("expire", "delete", "drop", "exists")

// gitMessageHits: a git command that prints messages in a repository
// whose messages hold a key or token; asked too when they could not be
// looked through.
func gitMessageHits(g gitInfo, cwds cwdSet, env Env) []hit {
	if env.FS == nil || !gitPrintsMessages(g) {
		return nil
	}
	ml, ok := env.FS.(historyMessageLister)
	by := "git " + g.sub + " " + joinValues(g.args)
	for _, d := range cwds.dirs {
		cfg, repo := env.repoConfig(d)
		if !repo {
			continue // no repository: git prints nothing of one
		}
		if !ok {
			return []hit{{id: FloorCredentialRead, detail: by + " prints the repository's messages, which could not be looked through for keys and tokens here"}}
		}
		found, err := ml.HistoryMessages(path.Dir(cfg))
		switch {
		case err != nil:
			return []hit{{id: FloorCredentialRead, detail: by + " prints the repository's messages, which could not be looked through for keys and tokens here (" + err.Error() + ")"}}
		case found == "a tag message" && g.sub != "tag" && g.sub != "show" && g.sub != "for-each-ref":
			continue // only these print a tag's message
		case found != "":
			return []hit{{id: FloorCredentialRead, detail: by + " prints the repository's messages, and " + found + " holds a key or token"}}
		}
	}
	if cwds.unknown {
		return []hit{{id: FloorCredentialRead, detail: by + " prints the messages of a repository known only when it runs"}}
	}
	return nil
}
