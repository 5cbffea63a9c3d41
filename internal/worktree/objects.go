package worktree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Each worktree agent writes its objects to a folder of its own,
// <common>/teamlead-objects/<id>, which its sandbox shows at
// <common>/objects, with the repository's objects read-only behind it
// (the folder's info/main, its alternate). Git does not check an object's
// hash when it reads one: with the repository's objects writable, an
// agent replaced the content behind the ids teamlead merge had shown, of
// its branch and of the human's history (red team 12a, finding 2). Now
// the human's objects are out of its reach, and what it wrote is copied
// into them, hash by hash, before a merge is shown (importObjects). The
// folder is outside the worktree's own git dir so that `git worktree
// prune` leaves the branch's commits; the repository lists it among its
// alternates, so the human's own git sees the agent's commits.
const objectsFolder = "teamlead-objects"

// ErrObjectsChanged: an agent's object does not hold what its id says.
var ErrObjectsChanged = errors.New("an object of the agent's does not match its id")

// privateObjects makes the agent's object folder, and returns it.
func privateObjects(common, id string) (string, error) {
	dir := filepath.Join(common, objectsFolder, id)
	for _, d := range []string{filepath.Join(dir, "pack"), filepath.Join(dir, "info", "main")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	// Relative to the folder: inside the sandbox, where the folder is
	// <common>/objects, info/main is the repository's objects; outside, an
	// empty folder. Written at each start: the agent may have changed it.
	if err := writeFileAtomic(filepath.Join(dir, "info", "alternates"), []byte("info/main\n")); err != nil {
		return "", err
	}
	main := filepath.Join(common, "objects", "info", "alternates")
	b, err := os.ReadFile(main)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l == dir {
			return dir, nil
		}
	}
	if len(b) > 0 && !bytes.HasSuffix(b, []byte("\n")) {
		b = append(b, '\n')
	}
	// Absolute: agents see the repository's objects at another path, and
	// a relative name would lead nowhere there (git warns on every run).
	return dir, writeFileAtomic(main, append(b, dir+"\n"...))
}

func writeFileAtomic(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".teamlead-tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// importObjects copies the objects reachable from at and not from head
// into the repository's own objects, verified: git index-pack names each
// object by the hash of what it stores, so an object whose content was
// replaced behind its id comes in under another id, and the one asked
// for is still missing from the repository's own objects: then nothing is
// shown or merged (ErrObjectsChanged). Objects already there are not
// copied again. Read with the repository's objects alone, an object
// cannot be an agent's afterwards: no agent can write them.
func importObjects(repo, common, at, head string) error {
	out, err := git(repo, "rev-list", "--objects", "--no-object-names", at, "--not", head)
	if err != nil {
		return err
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 {
		return nil
	}
	own, err := ownObjects(repo, common)
	if err != nil {
		return err
	}
	defer own.close()
	missing, err := own.missing(ids)
	if err != nil || len(missing) == 0 {
		return err
	}
	pack, err := runner{dir: repo, stdin: []byte(strings.Join(missing, "\n") + "\n")}.run("pack-objects", "--stdout", "-q")
	if err != nil {
		return err
	}
	if _, err := own.run(pack, "index-pack", "--stdin"); err != nil {
		return err
	}
	still, err := own.missing(missing)
	if err != nil {
		return err
	}
	if len(still) > 0 {
		return fmt.Errorf("%w: %d of the objects of %.12s (%s first) hold other content than their ids say: written over after they were made; nothing was shown or merged: look at the agent's branch, and ask the agent to commit its work again",
			ErrObjectsChanged, len(still), at, still[0])
	}
	return nil
}

// ownView runs git on the repository's own objects, alternates left
// out: a folder that leads to its packs and loose objects, with no
// info/alternates.
type ownView struct {
	repo string
	dir  string
	env  []string
}

func ownObjects(repo, common string) (*ownView, error) {
	objects := filepath.Join(common, "objects")
	dir, err := os.MkdirTemp("", "teamlead-objects-")
	if err != nil {
		return nil, err
	}
	v := &ownView{repo: repo, dir: dir}
	entries, err := os.ReadDir(objects)
	if err != nil {
		v.close()
		return nil, err
	}
	for _, e := range entries {
		if n := e.Name(); e.IsDir() && (n == "pack" || len(n) == 2 && strings.Trim(n, "0123456789abcdef") == "") {
			if err := os.Symlink(filepath.Join(objects, n), filepath.Join(dir, n)); err != nil {
				v.close()
				return nil, err
			}
		}
	}
	own, err := ownGitDir(repo)
	if err != nil {
		v.close()
		return nil, err
	}
	v.env = append(own, "GIT_OBJECT_DIRECTORY="+dir)
	return v, nil
}

func (v *ownView) close() { _ = os.RemoveAll(v.dir) }

// run runs git on the view, stdin its input.
func (v *ownView) run(stdin []byte, args ...string) ([]byte, error) {
	return runner{dir: v.repo, env: v.env, stdin: stdin}.run(args...)
}

// missing are those of ids the view does not hold.
func (v *ownView) missing(ids []string) ([]string, error) {
	out, err := v.run([]byte(strings.Join(ids, "\n")+"\n"), "cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var miss []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if id, ok := strings.CutSuffix(sc.Text(), " missing"); ok {
			miss = append(miss, id)
		}
	}
	return miss, sc.Err()
}
