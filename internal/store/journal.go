package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// The journal keeps what each commit changes besides its records — meta
// puts and deletes, outbox puts and deletes — so that a store can be
// rebuilt whole from a copy of its records and its journal (the team's
// streams on NATS, bus/natsbus). It is off until StartJournal: a store
// that publishes nowhere pays nothing. Once on, every Commit that changes
// anything but records and local meta keys writes one Change in the same
// transaction as its last part, numbered in commit order like records.
//
//	jrn/<n:8 BE>  → JSON Change
//	sys/journal   → JSON journalConfig (absent: the journal is off)
//
// StartJournal begins with a snapshot of the meta and the outbox (a
// Change with Base set, in chunks), so that a reader needs only the last
// snapshot and what follows it. A Commit of a process that did not start
// the journal writes it too (the configuration is in the store), so the
// journal stays unbroken until StopJournal.

var (
	prefixJournal = []byte("jrn/")
	keyJournal    = []byte("sys/journal")
)

// Change is what one commit changed besides its records, or one chunk of a
// snapshot (Base), as the journal keeps it.
type Change struct {
	// N numbers the journal's entries in commit order.
	N uint64 `json:"n"`
	// After is the last record seq handed out with or before this commit:
	// replayed after the records up to it, the change gives the state the
	// store had then.
	After uint64 `json:"after"`
	// Base is set on the chunks of a snapshot: the N of its first chunk.
	Base uint64 `json:"base,omitempty"`
	// Last marks a snapshot's last chunk.
	Last bool `json:"last,omitempty"`
	// Put are outbox entries written, Del those removed (delivered).
	Put []Delivery `json:"put,omitempty"`
	Del []uint64   `json:"del,omitempty"`
	// Meta are meta values written, MetaDel meta keys deleted after them.
	Meta    map[string]string `json:"meta,omitempty"`
	MetaDel []string          `json:"meta_del,omitempty"`
}

// journalConfig is the journal's stored configuration.
type journalConfig struct {
	// Local are the meta key prefixes kept out of the journal: the
	// machine's own state, which a rebuild must not take from a copy.
	Local []string `json:"local"`
}

// local reports whether key stays out of the journal.
func (c *journalConfig) local(key string) bool {
	for _, p := range c.Local {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// touches reports whether b changes anything the journal keeps.
func (c *journalConfig) touches(b *Batch) bool {
	if len(b.Enqueue)+len(b.Dequeue) > 0 {
		return true
	}
	for k := range b.Meta {
		if !c.local(k) {
			return true
		}
	}
	return slices.ContainsFunc(b.MetaDel, func(k string) bool { return !c.local(k) })
}

// change is the journal entry of b (its deliveries numbered and timed).
func (c *journalConfig) change(b *Batch, n, after uint64) Change {
	ch := Change{N: n, After: after, Put: slices.Clone(b.Enqueue), Del: slices.Clone(b.Dequeue)}
	for k, v := range b.Meta {
		if !c.local(k) {
			if ch.Meta == nil {
				ch.Meta = map[string]string{}
			}
			ch.Meta[k] = v
		}
	}
	for _, k := range b.MetaDel {
		if !c.local(k) {
			ch.MetaDel = append(ch.MetaDel, k)
		}
	}
	return ch
}

// journalKey is the key of journal entry n.
func journalKey(n uint64) []byte { return cat(prefixJournal, u64(n)) }

// journalUnit adds entry c to the last unit, so that it is on disk only
// with the whole batch.
func journalUnit(units []unit, c Change) ([]unit, error) {
	val, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("store: encode journal entry %d: %w", c.N, err)
	}
	o := op{key: journalKey(c.N), val: val}
	if len(units) == 0 {
		return []unit{{o}}, nil
	}
	units[len(units)-1] = append(units[len(units)-1], o)
	return units, nil
}

// journalConf is the journal's configuration, nil while it is off.
func (s *Store) journalConf() *journalConfig { return s.jrnl.Load() }

// loadJournal reads the journal's configuration at Open.
func (s *Store) loadJournal() error {
	return s.db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(keyJournal)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		var c journalConfig
		if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &c) }); err != nil {
			return fmt.Errorf("journal configuration: %w", err)
		}
		s.jrnl.Store(&c)
		return nil
	})
}

// Journaling reports whether the journal is on.
func (s *Store) Journaling() bool { return s.journalConf() != nil }

// snapshotChunk bounds the bytes of one snapshot entry.
const snapshotChunk = 256 << 10

// StartJournal turns the journal on, keeping meta keys under the local
// prefixes out of it, and numbers its entries after floor at least (the
// last entry a copy of the journal already holds). When it was on with
// the same prefixes it only continues; else it first writes a snapshot of
// the meta and the outbox. Call it before the store is shared: a Commit
// running meanwhile could be missed by the snapshot.
func (s *Store) StartJournal(local []string, floor uint64) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	conf := &journalConfig{Local: slices.Clone(local)}
	slices.Sort(conf.Local)
	if cur := s.journalConf(); cur != nil && slices.Equal(cur.Local, conf.Local) {
		return nil
	}
	s.alloc.mu.Lock()
	s.alloc.nextChg = max(s.alloc.nextChg, floor+1)
	s.alloc.mu.Unlock()
	after, maxID := s.alloc.visible()
	var chunks []Change
	cur := Change{After: after}
	size := 0
	flush := func() {
		chunks = append(chunks, cur)
		cur, size = Change{After: after}, 0
	}
	err := s.db.View(func(txn *badger.Txn) error {
		it := keyIterator(txn, prefixMeta)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			k := string(it.Item().Key()[len(prefixMeta):])
			if conf.local(k) {
				continue
			}
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			if cur.Meta == nil {
				cur.Meta = map[string]string{}
			}
			cur.Meta[k] = string(v)
			if size += len(k) + len(v) + 16; size >= snapshotChunk {
				flush()
			}
		}
		out := keyIterator(txn, prefixOut)
		defer out.Close()
		for out.Rewind(); out.Valid() && seqSuffix(out.Item().Key()) <= maxID; out.Next() {
			var d Delivery
			if err := out.Item().Value(func(v []byte) error { return json.Unmarshal(v, &d) }); err != nil {
				return fmt.Errorf("decode delivery: %w", err)
			}
			cur.Put = append(cur.Put, d)
			if size += len(d.Text) + 128; size >= snapshotChunk {
				flush()
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: snapshot for the journal: %w", err)
	}
	if size > 0 || len(chunks) == 0 {
		flush()
	}
	cfg, _ := json.Marshal(conf)
	var base uint64
	for i := range chunks {
		_, t, err := s.alloc.allocate(s.db, 0, nil, true)
		if err != nil {
			return s.writeError(err)
		}
		c := &chunks[i]
		if i == 0 {
			base = t.chg
		}
		c.N, c.Base, c.Last = t.chg, base, i == len(chunks)-1
		units, err := journalUnit(nil, *c)
		if err == nil && c.Last {
			units[0] = append(units[0], op{key: keyJournal, val: cfg})
		}
		if err == nil {
			err = s.writeUnits(units)
		}
		s.alloc.finish(t)
		if err != nil {
			return s.writeError(err)
		}
	}
	s.jrnl.Store(conf)
	return nil
}

// StopJournal turns the journal off and deletes its entries.
func (s *Store) StopJournal() error {
	if s.readOnly {
		return ErrReadOnly
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if s.journalConf() == nil && s.alloc.visibleJournal() == 0 {
		return nil
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyJournal) }); err != nil {
		return s.writeError(err)
	}
	s.jrnl.Store(nil)
	if err := s.dropKeys(prefixJournal); err != nil {
		return s.writeError(err)
	}
	return nil
}

// JournalLast is the number of the journal's last entry readers may see
// (every earlier one has finished committing), 0 when there is none.
func (s *Store) JournalLast() uint64 { return s.alloc.visibleJournal() }

// Journal returns up to limit entries numbered after after, in order.
func (s *Store) Journal(after uint64, limit int) ([]Change, error) {
	if err := s.enter(); err != nil {
		return nil, err
	}
	defer s.leave()
	upper := s.alloc.visibleJournal()
	var out []Change
	err := s.db.View(func(txn *badger.Txn) error {
		it := keyIterator(txn, prefixJournal)
		defer it.Close()
		for it.Seek(journalKey(after + 1)); it.Valid() && seqSuffix(it.Item().Key()) <= upper && (limit <= 0 || len(out) < limit); it.Next() {
			var c Change
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &c) }); err != nil {
				return fmt.Errorf("store: decode journal entry: %w", err)
			}
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// TrimJournal deletes the entries numbered below below (published
// elsewhere); the last entry always stays, so numbering resumes after it.
func (s *Store) TrimJournal(below uint64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	below = min(below, s.alloc.visibleJournal())
	var keys [][]byte
	err := s.db.View(func(txn *badger.Txn) error {
		it := keyIterator(txn, prefixJournal)
		defer it.Close()
		for it.Rewind(); it.Valid() && bytes.Compare(it.Item().Key(), journalKey(below)) < 0; it.Next() {
			keys = append(keys, it.Item().KeyCopy(nil))
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return err
	}
	units := make([]unit, len(keys))
	for i, k := range keys {
		units[i] = unit{{key: k, del: true}}
	}
	return s.wrapWrite(s.writeUnits(units))
}

// wrapWrite is writeError, nil for nil.
func (s *Store) wrapWrite(err error) error {
	if err == nil {
		return nil
	}
	return s.writeError(err)
}

// Empty reports whether the store holds no record, no outbox entry and
// no meta key but under the local prefixes.
func (s *Store) Empty(local []string) (bool, error) {
	if err := s.enter(); err != nil {
		return false, err
	}
	defer s.leave()
	conf := journalConfig{Local: local}
	empty := true
	err := s.db.View(func(txn *badger.Txn) error {
		for _, p := range [][]byte{prefixLog, prefixOut} {
			it := keyIterator(txn, p)
			it.Rewind()
			if it.Valid() {
				empty = false
			}
			it.Close()
		}
		it := keyIterator(txn, prefixMeta)
		defer it.Close()
		for it.Rewind(); it.Valid() && empty; it.Next() {
			if !conf.local(string(it.Item().Key()[len(prefixMeta):])) {
				empty = false
			}
		}
		return nil
	})
	return empty && err == nil, err
}

// Restore writes records and a journal entry as a copy of a store gave
// them: the records with their own Seq and Time (each past the store's
// last), then the change (its deliveries with their IDs, its meta with
// the indexes that follow). It writes no journal entry of its own: it is
// how a store is rebuilt, before it is used.
func (s *Store) Restore(recs []Record, c *Change) error {
	if s.readOnly {
		return ErrReadOnly
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	b := &Batch{}
	if c != nil {
		b.Enqueue, b.Dequeue, b.Meta, b.MetaDel = slices.Clone(c.Put), c.Del, maps.Clone(c.Meta), c.MetaDel
	}
	last := s.alloc.nextSeq - 1
	for _, r := range recs {
		if r.Seq <= last {
			return fmt.Errorf("store: restoring record %d after record %d: out of order", r.Seq, last)
		}
		last = r.Seq
	}
	for _, d := range b.Enqueue {
		if d.ID == 0 {
			return fmt.Errorf("store: restoring a delivery with no ID")
		}
	}
	hook, unlock, err := s.metaHook(b)
	if err != nil {
		return s.writeError(err)
	}
	defer unlock()
	t, err := s.alloc.restored(s.db, last, b.Enqueue)
	if err != nil {
		return s.writeError(err)
	}
	defer s.alloc.finish(t)
	var units []unit
	for i := range recs {
		u, err := recordUnit(&recs[i])
		if err != nil {
			return err
		}
		units = append(units, u)
	}
	rest, err := buildUnits(&Batch{Enqueue: b.Enqueue, Dequeue: b.Dequeue, Meta: b.Meta, MetaDel: b.MetaDel}, 0, time.Now().Round(0), hook)
	if err != nil {
		return err
	}
	return s.wrapWrite(s.writeUnits(append(units, rest...)))
}

// SkipDeliveryIDs leaves the next n delivery IDs unused: a rebuilt store
// does not give again an ID its lost original may have handed out last.
func (s *Store) SkipDeliveryIDs(n uint64) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.alloc.mu.Lock()
	defer s.alloc.mu.Unlock()
	next := s.alloc.nextID + n
	if next > s.alloc.lease {
		if err := writeLease(s.db, next); err != nil {
			return s.writeError(err)
		}
		s.alloc.lease = next
	}
	s.alloc.nextID = next
	return nil
}

// Clear deletes everything the store holds, as a store made anew (a
// rebuild cut short starts over). Call it before the store is shared.
func (s *Store) Clear() error {
	if s.readOnly {
		return ErrReadOnly
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if err := s.db.DropAll(); err != nil {
		return s.writeError(err)
	}
	a, err := recoverAllocator(s.db)
	if err != nil {
		return err
	}
	s.alloc = a
	s.jrnl.Store(nil)
	return s.loadMetaIndexes()
}
