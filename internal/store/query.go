package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/teamlead/teamlead/bus/wire"
)

// timeIndexBudget is how many time-index keys a query reads before deciding
// the time range is too wide to drive the query; a query that can merge-join
// equality indexes instead gives up sooner (budget / joinBudgetDivisor).
const (
	timeIndexBudget   = 1 << 16
	joinBudgetDivisor = 16
)

// errStop ends a scan early (Limit reached).
var errStop = errors.New("stop")

// Query selects audit records; zero fields do not filter.
type Query struct {
	Agent string    // matches Record.Agent, Record.From or any of Record.To
	Task  string    // matches Record.Task
	Type  string    // matches Record.Type
	Kind  wire.Kind // matches Record.Kind
	Since time.Time // inclusive lower bound on Record.Time
	Until time.Time // exclusive upper bound on Record.Time
	// AfterSeq keeps only records with Seq > AfterSeq.
	AfterSeq uint64
	// Limit caps the number of records; 0 means no limit.
	Limit int
	// Reverse returns the records newest first (descending Seq), so that
	// Limit keeps the latest ones; the indexes are read backwards.
	Reverse bool
}

// hasTime reports whether q bounds Record.Time.
func (q Query) hasTime() bool { return !q.Since.IsZero() || !q.Until.IsZero() }

// inTime reports whether a time in timeBytes encoding is within q's range.
func (q Query) inTime(at []byte) bool {
	return (q.Since.IsZero() || bytes.Compare(at, timeBytes(q.Since)) >= 0) &&
		(q.Until.IsZero() || bytes.Compare(at, timeBytes(q.Until)) < 0)
}

// Match reports whether r satisfies every filter of q (Limit and Reverse
// aside): for records read from elsewhere than the store.
func (q Query) Match(r *Record) bool {
	return r.Seq > q.AfterSeq &&
		(q.Agent == "" || slices.Contains(recordAgents(r), q.Agent)) &&
		(q.Task == "" || r.Task == q.Task) &&
		(q.Type == "" || r.Type == q.Type) &&
		(q.Kind == "" || r.Kind == q.Kind) &&
		(q.Since.IsZero() || !r.Time.Before(q.Since)) &&
		(q.Until.IsZero() || r.Time.Before(q.Until))
}

// postings lists the index prefixes for q's equality filters.
func (q Query) postings() [][]byte {
	var ps [][]byte
	for _, f := range []struct {
		ix   []byte
		name string
	}{{prefixAgent, q.Agent}, {prefixTask, q.Task}, {prefixType, q.Type}, {prefixKind, string(q.Kind)}} {
		if f.name != "" {
			ps = append(ps, postingPrefix(f.ix, f.name))
		}
	}
	return ps
}

// Query returns the records matching q in Seq order (newest first with Reverse).
func (s *Store) Query(q Query) ([]Record, error) {
	var out []Record
	err := s.Scan(q, func(r Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// Scan calls fn for each record matching q, in Seq order (descending with
// q.Reverse), from one consistent
// snapshot that holds every record up to LastSeq. It reads through the
// indexes: equality filters are merge-joined on seq, a narrow time range
// drives the query through the time index, and only a query with neither
// walks the log (from AfterSeq). An error from fn stops the scan and is
// returned. fn must not call Close.
func (s *Store) Scan(q Query, fn func(Record) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	upper, _ := s.alloc.visible()
	err := s.db.View(func(txn *badger.Txn) error {
		return scanTxn(txn, q, upper, s.timeBudget, fn)
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// scanTxn picks the access path for q and feeds matches to fn.
func scanTxn(txn *badger.Txn, q Query, upper uint64, budget int, fn func(Record) error) error {
	v := &visitor{txn: txn, q: q, fn: fn}
	from := q.AfterSeq + 1
	ps := q.postings()
	if len(ps) > 0 {
		budget /= joinBudgetDivisor
	}
	if q.hasTime() {
		if seqs, ok := timeCandidates(txn, q, from, upper, budget); ok {
			return visitAll(seqs, q.Reverse, v.seq)
		}
	}
	if len(ps) > 0 {
		var keep func([]byte) bool
		if q.hasTime() {
			keep = q.inTime // skip postings out of the range without loading their records
		}
		return joinPostings(txn, ps, from, upper, q.Reverse, keep, func(seq uint64, _ []byte) error { return v.seq(seq) })
	}
	return scanLog(txn, from, upper, q.Reverse, v.record)
}

// visitor applies q's filters and Limit, then calls fn.
type visitor struct {
	txn  *badger.Txn
	q    Query
	fn   func(Record) error
	seen int
}

// seq loads the record with the given seq and visits it.
func (v *visitor) seq(seq uint64) error {
	item, err := v.txn.Get(logKey(seq))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil // an index entry whose record is gone: skip it
	}
	if err != nil {
		return err
	}
	return item.Value(v.record)
}

// record decodes a log value and visits it.
func (v *visitor) record(val []byte) error {
	var r Record
	if err := json.Unmarshal(val, &r); err != nil {
		return fmt.Errorf("store: decode record: %w", err)
	}
	if !v.q.Match(&r) {
		return nil
	}
	if err := v.fn(r); err != nil {
		return err
	}
	v.seen++
	if v.q.Limit > 0 && v.seen >= v.q.Limit {
		return errStop
	}
	return nil
}

// visitAll calls visit for each seq in order, or in reverse order.
func visitAll(seqs []uint64, reverse bool, visit func(uint64) error) error {
	for i := range seqs {
		if reverse {
			i = len(seqs) - 1 - i
		}
		if err := visit(seqs[i]); err != nil {
			return err
		}
	}
	return nil
}

// timeCandidates returns the sorted seqs in q's time range, within
// [from, upper], or false when the range holds more than budget keys.
func timeCandidates(txn *badger.Txn, q Query, from, upper uint64, budget int) ([]uint64, bool) {
	lo, hi := prefixTime, cat(prefixTime, u64(^uint64(0)), []byte{0xff})
	if !q.Since.IsZero() {
		lo = cat(prefixTime, timeBytes(q.Since))
	}
	if !q.Until.IsZero() {
		hi = cat(prefixTime, timeBytes(q.Until))
	}
	it := keyIterator(txn, prefixTime)
	defer it.Close()
	var seqs []uint64
	read := 0
	for it.Seek(lo); it.Valid() && bytes.Compare(it.Item().Key(), hi) < 0; it.Next() {
		if read++; read > budget {
			return nil, false
		}
		if seq := seqSuffix(it.Item().Key()); seq >= from && seq <= upper {
			seqs = append(seqs, seq)
		}
	}
	slices.Sort(seqs)
	return seqs, true
}

// scanLog visits log values with seq in [from, upper], descending when reverse.
func scanLog(txn *badger.Txn, from, upper uint64, reverse bool, visit func([]byte) error) error {
	o := badger.DefaultIteratorOptions
	o.Prefix, o.Reverse = prefixLog, reverse
	it := txn.NewIterator(o)
	defer it.Close()
	start, in := logKey(from), func(seq uint64) bool { return seq <= upper }
	if reverse {
		start, in = logKey(upper), func(seq uint64) bool { return seq >= from }
	}
	for it.Seek(start); it.Valid() && in(seqSuffix(it.Item().Key())); it.Next() {
		if err := it.Item().Value(visit); err != nil {
			return err
		}
	}
	return nil
}

// keyIterator iterates keys under prefix without loading values.
func keyIterator(txn *badger.Txn, prefix []byte) *badger.Iterator {
	return postingIterator(txn, prefix, false)
}

// postingIterator iterates keys under prefix, backwards when reverse,
// without prefetching values (a posting's value is small and inline).
func postingIterator(txn *badger.Txn, prefix []byte, reverse bool) *badger.Iterator {
	o := badger.DefaultIteratorOptions
	o.Prefix, o.PrefetchValues, o.Reverse = prefix, false, reverse
	return txn.NewIterator(o)
}

// Outbox returns the pending deliveries in ID order.
func (s *Store) Outbox() ([]Delivery, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	_, upper := s.alloc.visible()
	var out []Delivery
	err := s.db.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixOut
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid() && seqSuffix(it.Item().Key()) <= upper; it.Next() {
			var d Delivery
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &d) }); err != nil {
				return fmt.Errorf("store: decode delivery: %w", err)
			}
			out = append(out, d)
		}
		return nil
	})
	return out, err
}

// Meta returns the value stored under key by a Batch.Meta and whether it exists.
func (s *Store) Meta(key string) (string, bool, error) {
	if err := s.enter(); err != nil {
		return "", false, err
	}
	defer s.leave()
	var val []byte
	var ok bool
	err := s.db.View(func(txn *badger.Txn) (err error) {
		val, ok, err = readMeta(txn, key)
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("store: meta %q: %w", key, err)
	}
	return string(val), ok, nil
}

// readMeta reads meta key in txn; ok is false when there is none.
func readMeta(txn *badger.Txn, key string) (val []byte, ok bool, err error) {
	item, err := txn.Get(metaKey(key))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	val, err = item.ValueCopy(nil)
	return val, err == nil, err
}

// LastSeq returns the highest seq such that every record up to it has
// finished committing; a reader that resumes with AfterSeq = LastSeq()
// never skips a record committed concurrently with a lower seq.
func (s *Store) LastSeq() uint64 {
	seq, _ := s.alloc.visible()
	return seq
}

// MetaPrefix calls fn for every meta key starting with prefix, in key
// order, with the key (prefix included) and its value.
func (s *Store) MetaPrefix(prefix string, fn func(key, val string) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	p := metaKey(prefix)
	return s.db.View(func(txn *badger.Txn) error {
		opts := badger.DefaultIteratorOptions
		opts.Prefix = p
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(p); it.ValidForPrefix(p); it.Next() {
			val, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if err := fn(string(it.Item().Key()[len(prefixMeta):]), string(val)); err != nil {
				return err
			}
		}
		return nil
	})
}

// MetaMany returns the values of keys that exist, read in one transaction.
func (s *Store) MetaMany(keys []string) (map[string]string, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	out := make(map[string]string, len(keys))
	err := s.db.View(func(txn *badger.Txn) error {
		for _, k := range keys {
			v, ok, err := readMeta(txn, k)
			if err != nil {
				return err
			}
			if ok {
				out[k] = string(v)
			}
		}
		return nil
	})
	return out, err
}
