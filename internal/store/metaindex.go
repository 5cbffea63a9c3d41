package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// Meta indexes. A caller registers (IndexMeta) which fields of the JSON
// values under a meta key prefix to index; from then on every Commit that
// writes or deletes such a key also writes its index entries and removes the
// stale ones, in the same transaction unit as the value. The registration
// is stored, so every later writer keeps the index up to date. Key layout:
//
//	sys/metaix/<prefix>                                   → JSON MetaIndex (the registration)
//	mx/<esc(prefix)>\x00<esc(field)>\x00<esc(value)>\x00<order:8><key suffix> → tuple
//	mx/<esc(prefix)>\x00\x00\x00<order:8><key suffix>                       → tuple (every value)
//
// <order> is the value of the index's Order field (a time, encoded as in
// the time index; 0 when missing), so each posting list is sorted by it and
// a time range is one contiguous slice of it; <key suffix> is the meta key
// after the prefix. The tuple holds the full value of every indexed and
// covered field (escaped, \x00-separated), so a query filters exactly and
// aggregates without loading the indexed documents.

// Sentinel errors of the meta indexes.
var (
	// ErrNotIndexed means a meta prefix has no (finished) index.
	ErrNotIndexed = errors.New("meta prefix is not indexed")
	// ErrBadIndex means a MetaIndex or MetaQuery is malformed.
	ErrBadIndex = errors.New("bad meta index")
)

var (
	prefixMetaIx    = []byte("mx/")
	prefixMetaIxReg = []byte("sys/metaix/")
)

// metaIndexChunk is how many values one step of an index build reads and
// indexes while commits to the prefix wait.
const metaIndexChunk = 1000

// MetaIndex describes a secondary index over the JSON values stored under a
// meta key prefix. A field is a dotted path into the value: "status",
// "verdicts.0.at" (a number picks an array element). A string is indexed as
// is, a number or bool as its JSON text, a missing field or null as "".
type MetaIndex struct {
	// Prefix is the meta key prefix whose values are indexed, e.g. "c/".
	Prefix string `json:"prefix"`
	// Order is the field (an RFC 3339 time) entries are sorted and ranged by.
	Order string `json:"order"`
	// Fields are the fields a MetaQuery may filter on (equality).
	Fields []string `json:"fields"`
	// Covered are further fields kept in every entry, for MetaEntry.Field.
	Covered []string `json:"covered,omitempty"`
}

// MetaQuery selects entries of an indexed meta prefix.
type MetaQuery struct {
	// Prefix is the indexed prefix (MetaIndex.Prefix).
	Prefix string
	// Where lists conditions that must all hold.
	Where []MetaCond
	// Since and Until bound the Order field: inclusive, exclusive.
	Since, Until time.Time
	// Reverse returns the latest Order first (then the greatest key first).
	Reverse bool
	// Limit caps the number of entries; 0 means no limit.
	Limit int
}

// MetaCond holds when any of Fields has any of Values.
type MetaCond struct {
	// Fields are indexed fields (MetaIndex.Fields).
	Fields []string
	// Values are the accepted values.
	Values []string
}

// MetaEntry is one indexed value, as MetaScan finds it.
type MetaEntry struct {
	// Key is the meta key, prefix included.
	Key string
	// Order is the value of the index's Order field (zero if missing).
	Order time.Time

	ix   *metaIndex
	raw  []byte // the entry's tuple (a reused buffer)
	offs []int  // where each field of raw ends, then starts the next
	txn  *badger.Txn
}

// setTuple makes raw (copied) the entry's tuple.
func (e *MetaEntry) setTuple(raw []byte) {
	e.raw = append(e.raw[:0], raw...)
	e.offs = e.offs[:0]
	for at := 0; ; {
		i := bytes.IndexByte(e.raw[at:], 0)
		if i < 0 {
			break
		}
		at += i
		e.offs = append(e.offs, at)
		at++
	}
	e.offs = append(e.offs, len(e.raw))
}

// Field returns the value of an indexed or covered field of the entry.
func (e *MetaEntry) Field(name string) string { return string(e.FieldBytes(name)) }

// FieldBytes is Field without a copy: the bytes are valid only until the
// callback returns.
func (e *MetaEntry) FieldBytes(name string) []byte { return e.field(e.ix.pos(name)) }

// field returns the i-th value of the tuple, unescaped.
func (e *MetaEntry) field(i int) []byte {
	if i < 0 || i >= len(e.offs) {
		return nil
	}
	start := 0
	if i > 0 {
		start = e.offs[i-1] + 1
	}
	v := e.raw[start:e.offs[i]]
	if bytes.IndexByte(v, 1) < 0 {
		return v
	}
	return []byte(decodeTuple(v, 1)[0])
}

// Load reads the entry's stored value from the scan's snapshot. It is valid
// only during the MetaScan callback.
func (e *MetaEntry) Load() ([]byte, error) {
	item, err := e.txn.Get(metaKey(e.Key))
	if err != nil {
		return nil, fmt.Errorf("store: meta %q: %w", e.Key, err)
	}
	return item.ValueCopy(nil)
}

// metaIndex is a registered MetaIndex, compiled.
type metaIndex struct {
	spec  MetaIndex
	ready bool     // built: queries may use it
	base  []byte   // mx/<esc(prefix)>\x00
	names []string // Fields then Covered
	paths [][]string
	order []string
}

// compileMetaIndex validates spec.
func compileMetaIndex(spec MetaIndex) (*metaIndex, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w for prefix %q: %s", ErrBadIndex, spec.Prefix, fmt.Sprintf(format, a...))
	}
	if spec.Prefix == "" || len(spec.Prefix) > maxIndexName {
		return nil, bad("the prefix must be 1 to %d bytes", maxIndexName)
	}
	if spec.Order == "" || len(spec.Fields) == 0 {
		return nil, bad("name an Order field and at least one field to index")
	}
	ix := &metaIndex{spec: spec, base: cat(prefixMetaIx, escapeAll(spec.Prefix), []byte{0}), order: strings.Split(spec.Order, ".")}
	for _, name := range append(slices.Clone(spec.Fields), spec.Covered...) {
		if name == "" || slices.Contains(ix.names, name) {
			return nil, bad("field %q is empty or named twice", name)
		}
		ix.names = append(ix.names, name)
		ix.paths = append(ix.paths, strings.Split(name, "."))
	}
	return ix, nil
}

// pos is the position of field name in the tuple, or -1.
func (ix *metaIndex) pos(name string) int { return slices.Index(ix.names, name) }

// indexed reports whether name is one of the fields queries may filter on.
func (ix *metaIndex) indexed(name string) bool { return slices.Contains(ix.spec.Fields, name) }

// postingPrefix is the prefix of the entries of field = value ("" and "" for all).
func (ix *metaIndex) postingPrefix(field, value string) []byte {
	return cat(ix.base, escapeName(field), []byte{0}, escapeName(value), []byte{0})
}

// entries lists the index entries of the value doc stored under key.
func (ix *metaIndex) entries(key string, doc []byte) []op {
	vals, order := ix.extract(doc)
	suffix := cat(orderBytes(order), []byte(key[len(ix.spec.Prefix):]))
	tuple := encodeTuple(vals)
	ops := []op{{key: cat(ix.postingPrefix("", ""), suffix), val: tuple}}
	for i, f := range ix.spec.Fields {
		ops = append(ops, op{key: cat(ix.postingPrefix(f, vals[i]), suffix), val: tuple})
	}
	return ops
}

// transition is the ops that move key's index entries from the value old
// to the value new.
func (ix *metaIndex) transition(key string, old, new metaValue) []op {
	var was, is []op
	if old.ok {
		was = ix.entries(key, old.val)
	}
	if new.ok {
		is = ix.entries(key, new.val)
	}
	var ops []op
	for _, o := range was {
		if !slices.ContainsFunc(is, func(n op) bool { return bytes.Equal(n.key, o.key) }) {
			ops = append(ops, op{key: o.key, del: true})
		}
	}
	return append(ops, is...)
}

// extract reads the fields and the order of doc; a value that is not a
// JSON object has every field empty.
func (ix *metaIndex) extract(doc []byte) ([]string, time.Time) {
	vals := make([]string, len(ix.paths))
	var top map[string]json.RawMessage
	if json.Unmarshal(doc, &top) != nil {
		return vals, time.Time{}
	}
	for i, p := range ix.paths {
		vals[i] = scalar(lookup(top, p))
	}
	var order time.Time
	if raw := lookup(top, ix.order); raw != nil {
		_ = json.Unmarshal(raw, &order)
	}
	return vals, order
}

// lookup follows path from the top-level object; nil when it leads nowhere.
func lookup(top map[string]json.RawMessage, path []string) json.RawMessage {
	cur := top[path[0]]
	for _, step := range path[1:] {
		cur = bytes.TrimSpace(cur)
		switch {
		case len(cur) > 0 && cur[0] == '{':
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				return nil
			}
			cur = obj[step]
		case len(cur) > 0 && cur[0] == '[':
			var arr []json.RawMessage
			n, err := strconv.Atoi(step)
			if err != nil || json.Unmarshal(cur, &arr) != nil || n < 0 || n >= len(arr) {
				return nil
			}
			cur = arr[n]
		default:
			return nil
		}
	}
	return cur
}

// scalar renders a JSON value as an index value.
func scalar(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// orderBytes encodes an Order value; the zero time sorts first.
func orderBytes(t time.Time) []byte {
	if t.IsZero() {
		return make([]byte, 8)
	}
	return timeBytes(t)
}

// orderTime decodes orderBytes.
func orderTime(b []byte) time.Time {
	v := binary.BigEndian.Uint64(b)
	if v == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(v^(1<<63))).UTC()
}

// escapeAll is escapeName without the length cut.
func escapeAll(s string) []byte {
	out := make([]byte, 0, len(s)+2)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case 0x00:
			out = append(out, 0x01, 0x02)
		case 0x01:
			out = append(out, 0x01, 0x03)
		default:
			out = append(out, c)
		}
	}
	return out
}

// encodeTuple joins escaped values with \x00.
func encodeTuple(vals []string) []byte {
	var b []byte
	for i, v := range vals {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, escapeAll(v)...)
	}
	return b
}

// decodeTuple splits and unescapes an encodeTuple value.
func decodeTuple(b []byte, n int) []string {
	vals := make([]string, 0, n)
	var cur []byte
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case c == 0:
			vals = append(vals, string(cur))
			cur = cur[:0]
		case c == 1 && i+1 < len(b):
			i++
			cur = append(cur, b[i]-2) // 0x02 → 0x00, 0x03 → 0x01
		default:
			cur = append(cur, c)
		}
	}
	return append(vals, string(cur))
}
