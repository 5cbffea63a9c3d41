package queryfiles

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/teamlead/teamlead/internal/yamlstrict"

	"go.yaml.in/yaml/v3"
)

// IndexFile is the index's name inside a queries folder (seed 000 "File
// Locations"; optional, for tracking).
const IndexFile = "index.yaml"

// IndexEntry is one query in the index.
type IndexEntry struct {
	// ID is the query's id; entries are matched by it (by File when empty).
	ID string `yaml:"id,omitempty"`
	// File is the query file's name inside the folder.
	File string `yaml:"file,omitempty"`
	// From is the asking agent.
	From string `yaml:"from,omitempty"`
	// To are the agents asked.
	To []string `yaml:"to,omitempty"`
	// Priority is the query's priority.
	Priority Priority `yaml:"priority,omitempty"`
	// Status is the query's status.
	Status Status `yaml:"status,omitempty"`
	// Asked is when the query was asked.
	Asked time.Time `yaml:"asked,omitempty"`
	// Answered is when it was answered (zero until then).
	Answered time.Time `yaml:"answered,omitempty"`
	// Response is the response file's name inside the folder, once written.
	Response string `yaml:"response,omitempty"`
	// Consult is the consultation id the console assigned, e.g. c-4.
	Consult string `yaml:"consult,omitempty"`
}

// indexHeader is the comment at the top of the index.
const indexHeader = "# Query index kept by teamlead: one entry per query file.\n"

// IndexPath is the index file of the queries folder dir.
func IndexPath(dir string) string { return filepath.Join(dir, IndexFile) }

// NewIndexEntry is the index entry for q (File is the base name of q.File).
func NewIndexEntry(q *Query) IndexEntry {
	return IndexEntry{
		ID: q.ID, File: filepath.Base(q.File), From: q.From, To: append([]string(nil), q.To...),
		Priority: q.Priority, Status: q.Status, Asked: q.Time,
	}
}

// LoadIndex reads the index of the queries folder dir: nil and no error
// when there is none; an error wrapping ErrCorruptIndex when it cannot be read
// as a list of entries.
func LoadIndex(dir string) ([]IndexEntry, error) {
	path := IndexPath(dir)
	data, _, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("spc: %s: %w: %v", path, ErrCorruptIndex, err)
	}
	var raw []indexEntryYAML
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("spc: %s: %w: %v", path, ErrCorruptIndex, err)
	}
	out := make([]IndexEntry, 0, len(raw))
	for _, r := range raw {
		out = append(out, r.entry())
	}
	return out, nil
}

// UpsertIndex adds entries to the index of the queries folder dir, or
// updates the entries with the same ID (File when the ID is empty): each
// non-empty field given replaces the stored one; times are kept in UTC. The folder is created if
// needed and the index is written atomically; the entries written are
// returned. An unreadable index is kept as index.yaml.corrupt and rebuilt
// from the entries given, and the error (wrapping ErrCorruptIndex) says so,
// with the entries written. Calls for one folder must not run concurrently.
func UpsertIndex(dir string, entries ...IndexEntry) ([]IndexEntry, error) {
	path := IndexPath(dir)
	// Not through a folder made a link since the query was read: the
	// index there is not the agent's to keep aside and rebuild.
	if err := inLinkedFolder("write", path); err != nil {
		return nil, err
	}
	list, corrupt := LoadIndex(dir)
	if corrupt != nil {
		if err := os.Rename(path, path+".corrupt"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("spc: keep %s: %w", path, err)
		}
		list = nil
	}
	for _, e := range entries {
		list = upsert(list, e)
	}
	data, err := marshalIndex(list)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	if err := writeAtomic(path, data, 0o644, nil); err != nil {
		return nil, fmt.Errorf("spc: write %s: %w", path, err)
	}
	if corrupt != nil {
		return list, fmt.Errorf("%w; rebuilt it, the old one is %s.corrupt", corrupt, path)
	}
	return list, nil
}

// upsert merges e into list by key.
func upsert(list []IndexEntry, e IndexEntry) []IndexEntry {
	e.Asked, e.Answered = utc(e.Asked), utc(e.Answered)
	for i := range list {
		if sameEntry(list[i], e) {
			list[i] = merge(list[i], e)
			return list
		}
	}
	return append(list, e)
}

// sameEntry reports whether a and b describe the same query.
func sameEntry(a, b IndexEntry) bool {
	if a.ID != "" || b.ID != "" {
		return a.ID == b.ID
	}
	return a.File == b.File
}

// merge returns old with every non-empty field of e.
func merge(old, e IndexEntry) IndexEntry {
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&old.ID, e.ID)
	set(&old.File, e.File)
	set(&old.From, e.From)
	set(&old.Response, e.Response)
	set(&old.Consult, e.Consult)
	if len(e.To) > 0 {
		old.To = append([]string(nil), e.To...)
	}
	if e.Priority != "" {
		old.Priority = e.Priority
	}
	if e.Status != "" {
		old.Status = e.Status
	}
	if !e.Asked.IsZero() {
		old.Asked = e.Asked
	}
	if !e.Answered.IsZero() {
		old.Answered = e.Answered
	}
	return old
}

// marshalIndex renders the index.
func marshalIndex(out []IndexEntry) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(indexHeader)
	if len(out) == 0 {
		buf.WriteString("[]\n")
		return buf.Bytes(), nil
	}
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	return buf.Bytes(), nil
}

// utc is t in UTC, zero kept zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC()
}

// indexEntryYAML reads an entry leniently: "to" as one name or a list, times
// as any text (an unreadable time reads as zero).
type indexEntryYAML struct {
	ID       string    `yaml:"id"`
	File     string    `yaml:"file"`
	From     string    `yaml:"from"`
	To       yaml.Node `yaml:"to"`
	Priority string    `yaml:"priority"`
	Status   string    `yaml:"status"`
	Asked    string    `yaml:"asked"`
	Answered string    `yaml:"answered"`
	Response string    `yaml:"response"`
	Consult  string    `yaml:"consult"`
}

// entry converts a read entry.
func (r indexEntryYAML) entry() IndexEntry {
	d := &doc{file: IndexFile}
	to := d.agents("to", yamlstrict.Deref(&r.To))
	p, _ := ParsePriority(r.Priority)
	s, _ := ParseStatus(r.Status)
	return IndexEntry{
		ID: r.ID, File: r.File, From: r.From, To: to, Priority: p, Status: s,
		Asked: parseTime(r.Asked), Answered: parseTime(r.Answered), Response: r.Response, Consult: r.Consult,
	}
}
