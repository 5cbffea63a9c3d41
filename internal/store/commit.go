package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/teamlead/teamlead/bus/wire"
)

// Record and Delivery are defined with the other types that travel on the
// bus, in a package that does no I/O, so that the pure machines need not
// link the store.
type (
	Record   = wire.Record
	Delivery = wire.Delivery
)

// Batch is everything one step of the engine writes, committed atomically.
type Batch struct {
	Records []Record          // audit records to append; Seq is filled in
	Enqueue []Delivery        // outbox puts; a zero ID is filled in
	Dequeue []uint64          // outbox deletes (delivered)
	Meta    map[string]string // small key/values, e.g. counters, consumer positions
	MetaDel []string          // meta keys to delete (after the puts of Meta)
}

// empty reports whether the batch writes nothing.
func (b *Batch) empty() bool {
	return b == nil || len(b.Records)+len(b.Enqueue)+len(b.Dequeue)+len(b.Meta)+len(b.MetaDel) == 0
}

// size estimates the bytes a batch will write.
func (b *Batch) size() int {
	n := 0
	for _, r := range b.Records {
		n += 256 + len(r.Body) + len(r.Reason)
	}
	for _, d := range b.Enqueue {
		n += 128 + len(d.Text)
	}
	for _, v := range b.Meta {
		n += 64 + len(v)
	}
	return n + 32*len(b.Dequeue) + 32*len(b.MetaDel)
}

// Commit writes b in one Badger transaction (split in order, at record or
// delivery boundaries, only when it exceeds Badger's transaction size) and
// fills b.Records[i].Seq and zero b.Enqueue[i].ID in place. It returns once
// the data is durable: in the page cache, or fsynced with Options.Sync.
// Concurrent commits allocate numbers under a short lock and then commit in
// parallel, so Badger can group-commit them. On error nothing is
// acknowledged; the numbers handed out are skipped, and a batch that had to
// be split may be partly on disk (whole records and deliveries only).
func (s *Store) Commit(b *Batch) error {
	if s.readOnly {
		return fmt.Errorf("%w: %s (writes go through the running console)", ErrReadOnly, s.dir)
	}
	if b.empty() {
		return nil
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	if err := s.space.check(b.size()); err != nil {
		return err
	}
	hook, unlock, err := s.metaHook(b)
	if err != nil {
		return s.writeError(err)
	}
	defer unlock()
	jc := s.journalConf()
	journaled := jc != nil && jc.touches(b)
	first, t, err := s.alloc.allocate(s.db, len(b.Records), b.Enqueue, journaled)
	if err != nil {
		return s.writeError(err)
	}
	defer s.alloc.finish(t)
	units, err := buildUnits(b, first, time.Now().Round(0), hook)
	if err != nil {
		return err
	}
	if journaled {
		if units, err = journalUnit(units, jc.change(b, t.chg, first+uint64(len(b.Records))-1)); err != nil {
			return err
		}
	}
	if err := s.writeUnits(units); err != nil {
		return s.writeError(err)
	}
	return nil
}

// writeError classifies a failed write.
func (s *Store) writeError(err error) error {
	if isNoSpace(err) {
		return diskFull(s.dir, err)
	}
	if errors.Is(err, ErrTooLarge) {
		return err
	}
	return fmt.Errorf("store: commit to %s: %w", s.dir, err)
}

// op is one key write or delete.
type op struct {
	key, val []byte
	del      bool
}

// unit is a group of ops that never straddles a transaction split.
type unit []op

// buildUnits numbers the records from first and turns the batch into units;
// hook (may be nil) adds to each meta write or delete the index ops that
// go with it.
func buildUnits(b *Batch, first uint64, now time.Time, hook metaHook) ([]unit, error) {
	units := make([]unit, 0, len(b.Records)+len(b.Enqueue)+len(b.Dequeue)+len(b.Meta))
	for i := range b.Records {
		r := &b.Records[i]
		r.Seq = first + uint64(i)
		if r.Time.IsZero() {
			r.Time = now
		}
		u, err := recordUnit(r)
		if err != nil {
			return nil, err
		}
		units = append(units, u)
	}
	for i := range b.Enqueue {
		u, err := deliveryUnit(&b.Enqueue[i], now)
		if err != nil {
			return nil, err
		}
		units = append(units, u)
	}
	for _, id := range b.Dequeue {
		units = append(units, unit{{key: outKey(id), del: true}})
	}
	for _, k := range slices.Sorted(maps.Keys(b.Meta)) {
		u := unit{{key: metaKey(k), val: []byte(b.Meta[k])}}
		units = append(units, append(u, hook.ops(k, []byte(b.Meta[k]), false)...))
	}
	for _, k := range b.MetaDel {
		u := unit{{key: metaKey(k), del: true}}
		units = append(units, append(u, hook.ops(k, nil, true)...))
	}
	return units, nil
}

// recordUnit is a record's log entry plus its index entries.
func recordUnit(r *Record) (unit, error) {
	val, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("store: encode record %d: %w", r.Seq, err)
	}
	u := unit{{key: logKey(r.Seq), val: val}, {key: timeKey(r.Time, r.Seq)}}
	// Each posting carries the record's time, so a query with a time range
	// can skip postings outside it without loading their records.
	at := timeBytes(r.Time)
	for _, name := range recordAgents(r) {
		u = append(u, op{key: postingKey(prefixAgent, name, r.Seq), val: at})
	}
	for _, ix := range []struct {
		prefix []byte
		name   string
	}{{prefixTask, r.Task}, {prefixType, r.Type}, {prefixKind, string(r.Kind)}} {
		if ix.name != "" {
			u = append(u, op{key: postingKey(ix.prefix, ix.name, r.Seq), val: at})
		}
	}
	return u, nil
}

// recordAgents lists the distinct non-empty agent names a record is about.
func recordAgents(r *Record) []string {
	names := make([]string, 0, 2+len(r.To))
	for _, n := range append([]string{r.Agent, r.From}, r.To...) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

// deliveryUnit is a delivery's outbox entry.
func deliveryUnit(d *Delivery, now time.Time) (unit, error) {
	if d.Time.IsZero() {
		d.Time = now
	}
	val, err := json.Marshal(d)
	if err != nil {
		return nil, fmt.Errorf("store: encode delivery %d: %w", d.ID, err)
	}
	return unit{{key: outKey(d.ID), val: val}}, nil
}

// writeUnits commits units in order, as few transactions as Badger allows.
func (s *Store) writeUnits(units []unit) error {
	for len(units) > 0 {
		n, err := s.commitPrefix(units)
		if err != nil {
			return err
		}
		units = units[n:]
	}
	return nil
}

// commitPrefix commits the longest prefix of units that fits one transaction.
func (s *Store) commitPrefix(units []unit) (int, error) {
	n, err := s.tryCommit(units)
	if !errors.Is(err, badger.ErrTxnTooBig) {
		return n, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%w: one record or delivery exceeds Badger's transaction size", ErrTooLarge)
	}
	_, err = s.tryCommit(units[:n])
	return n, err
}

// tryCommit commits all units in one transaction, or reports how many fit.
func (s *Store) tryCommit(units []unit) (int, error) {
	txn := s.db.NewTransaction(true)
	defer txn.Discard()
	for i, u := range units {
		if err := addUnit(txn, u); err != nil {
			return i, err
		}
	}
	return len(units), txn.Commit()
}

// addUnit stages one unit's ops in txn.
func addUnit(txn *badger.Txn, u unit) error {
	for _, o := range u {
		var err error
		if o.del {
			err = txn.Delete(o.key)
		} else {
			err = txn.Set(o.key, o.val)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
