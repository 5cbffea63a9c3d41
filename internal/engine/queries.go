package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/queryfiles"
	"github.com/teamlead/teamlead/internal/querywatch"
)

// queriesDir is where seed 000 keeps query files, in a working folder.
const queriesDir = ".spc/queries"

// watchQueries watches .spc/queries in every agent's working folder and
// the shared folders of consultations.queries; each query file becomes
// consultations. Files already there are reported too: the lead takes each
// file once, so those answered before a restart are not asked again.
func (e *Engine) watchQueries() error {
	owners := map[string][]string{}
	for _, a := range e.opts.Team.Agents {
		dir := filepath.Join(a.Dir, queriesDir)
		owners[dir] = append(owners[dir], a.Name)
	}
	for _, d := range e.opts.Team.Consultations.Queries {
		owners[d] = nil // shared: any agent of the team may write there
	}
	w, err := querywatch.NewWatcher(func(ev querywatch.Event) {
		e.send(input{kind: inQuery, query: lead.QueryFile{Path: ev.Path, Owners: owners[ev.Dir], Query: ev.Query, Err: ev.Err}})
	})
	if err != nil {
		return err
	}
	e.queries = w
	dirs := make([]string, 0, len(owners))
	for d := range owners {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if err := w.Add(d, d); err != nil {
			return err
		}
	}
	e.files, e.filesDone = make(chan lead.FileOp, 256), make(chan struct{})
	go e.writeFiles(e.files, e.filesDone)
	return nil
}

// othersQueries are the query folders of the agents other than name that
// work in folders of their own, which name's sandbox shows empty: a query
// file there is taken as from the agent whose folder holds it, and its
// response holds what was answered to that agent, the human's words
// among them (red team 19b, findings 1 and 2: an agent wrote a query
// "from" another into that one's folder, and read the human's answer
// beside another's query). Each is made if missing (inside its agent's
// folder only), so that there is a folder to show empty. Agents that
// share a folder share its query folder: there, what one writes cannot be
// told from what another does (README, "Query files").
func (e *Engine) othersQueries(name string) []string {
	var mine string
	for _, a := range e.opts.Team.Agents {
		if a.Name == name {
			mine = filepath.Clean(a.Dir)
		}
	}
	var out []string
	for _, a := range e.opts.Team.Agents {
		if a.Name == name || a.Host != "" || filepath.Clean(a.Dir) == mine {
			continue
		}
		real, err := fsutil.Within(a.Dir, filepath.Join(a.Dir, queriesDir))
		if err != nil || slices.Contains(out, real) || os.MkdirAll(real, 0o755) != nil {
			continue
		}
		out = append(out, real)
	}
	return out
}

// writeFiles makes the query-file changes the lead asked for, one at a
// time (the index of a folder must not be written by two at once), until
// ops is closed at shutdown; then it closes done.
func (e *Engine) writeFiles(ops <-chan lead.FileOp, done chan<- struct{}) {
	defer close(done)
	for op := range ops {
		if err := applyFileOp(op); err != nil && e.opts.OnError != nil {
			e.opts.OnError(fmt.Errorf("query files: %w", err))
		}
	}
}

func applyFileOp(op lead.FileOp) error {
	if op.Response != nil {
		if _, err := queryfiles.WriteResponse(op.Query, *op.Response); err != nil {
			return fmt.Errorf("writing the response to %s: %w", op.Query, err)
		}
	}
	if op.Status != "" {
		if err := queryfiles.SetStatus(op.Query, op.Status); err != nil {
			return fmt.Errorf("setting the status of %s: %w", op.Query, err)
		}
	}
	if op.Index.ID != "" || op.Index.File != "" {
		if _, err := queryfiles.UpsertIndex(filepath.Dir(op.Query), op.Index); err != nil {
			return fmt.Errorf("updating the index of %s: %w", filepath.Dir(op.Query), err)
		}
	}
	return nil
}
