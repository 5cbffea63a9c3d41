package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"strings"

	badger "github.com/dgraph-io/badger/v4"
)

// loadMetaIndexes reads the stored registrations at Open.
func (s *Store) loadMetaIndexes() error {
	reg := map[string]*metaIndex{}
	err := s.db.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = prefixMetaIxReg
		it := txn.NewIterator(o)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			var spec MetaIndex
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &spec) }); err != nil {
				return fmt.Errorf("registration %q: %w", it.Item().Key(), err)
			}
			ix, err := compileMetaIndex(spec)
			if err != nil {
				return err
			}
			ix.ready = true
			reg[spec.Prefix] = ix
		}
		return nil
	})
	s.metaIx.Store(&reg)
	return err
}

// registry returns the current meta indexes (read-only).
func (s *Store) registry() map[string]*metaIndex { return *s.metaIx.Load() }

// setIndex replaces (or with nil removes) the index of prefix; metaMu must be held.
func (s *Store) setIndex(prefix string, ix *metaIndex) {
	reg := maps.Clone(s.registry())
	if ix == nil {
		delete(reg, prefix)
	} else {
		reg[prefix] = ix
	}
	s.metaIx.Store(&reg)
}

// indexFor returns the index whose prefix key starts with, or nil.
func indexFor(reg map[string]*metaIndex, key string) *metaIndex {
	for p, ix := range reg {
		if strings.HasPrefix(key, p) {
			return ix
		}
	}
	return nil
}

// MetaIndexOf returns the finished index registered for prefix.
func (s *Store) MetaIndexOf(prefix string) (MetaIndex, bool) {
	ix := s.registry()[prefix]
	if ix == nil || !ix.ready {
		return MetaIndex{}, false
	}
	return ix.spec, true
}

// IndexMeta registers spec and builds its index from the values already
// stored; from then on every commit keeps it up to date, in this process
// and, the registration being stored, in every later one. Registering the
// same spec again does nothing; a changed spec rebuilds the index. Commits
// of the prefix wait only for one chunk of the build at a time; queries
// fail with ErrNotIndexed until the build is done.
func (s *Store) IndexMeta(spec MetaIndex) error {
	if s.readOnly {
		return fmt.Errorf("%w: %s (the running console builds indexes)", ErrReadOnly, s.dir)
	}
	ix, err := compileMetaIndex(spec)
	if err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	defer s.leave()
	s.regMu.Lock()
	defer s.regMu.Unlock()
	if old := s.registry()[spec.Prefix]; old != nil && old.ready && reflect.DeepEqual(old.spec, spec) {
		return nil
	}
	for p := range s.registry() {
		if p != spec.Prefix && (strings.HasPrefix(p, spec.Prefix) || strings.HasPrefix(spec.Prefix, p)) {
			return fmt.Errorf("%w: prefix %q overlaps the indexed prefix %q", ErrBadIndex, spec.Prefix, p)
		}
	}
	if err := s.buildMetaIndex(ix); err != nil {
		return s.writeError(fmt.Errorf("index meta %q: %w", spec.Prefix, err))
	}
	return nil
}

// buildMetaIndex drops whatever index prefix had, then indexes its values
// chunk by chunk while commits maintain what they write, then records the
// registration. A build cut short leaves no registration: the next
// IndexMeta starts over.
func (s *Store) buildMetaIndex(ix *metaIndex) error {
	s.metaMu.Lock()
	s.setIndex(ix.spec.Prefix, nil)
	err := s.db.Update(func(txn *badger.Txn) error { return txn.Delete(regKey(ix.spec.Prefix)) })
	s.metaMu.Unlock()
	if err != nil {
		return err
	}
	if err := s.dropKeys(ix.base); err != nil {
		return err
	}
	building := *ix
	s.metaMu.Lock()
	s.setIndex(ix.spec.Prefix, &building)
	s.metaMu.Unlock()
	for after := []byte(nil); ; {
		var done bool
		var err error
		s.metaMu.Lock()
		after, done, err = s.indexChunk(ix, after)
		s.metaMu.Unlock()
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	spec, err := json.Marshal(ix.spec)
	if err != nil {
		return err
	}
	s.metaMu.Lock()
	defer s.metaMu.Unlock()
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(regKey(ix.spec.Prefix), spec) }); err != nil {
		return err
	}
	ready := *ix
	ready.ready = true
	s.setIndex(ix.spec.Prefix, &ready)
	return nil
}

// regKey is the key of prefix's registration.
func regKey(prefix string) []byte { return cat(prefixMetaIxReg, []byte(prefix)) }

// dropKeys deletes every key under prefix.
func (s *Store) dropKeys(prefix []byte) error {
	for {
		var keys [][]byte
		err := s.db.View(func(txn *badger.Txn) error {
			it := keyIterator(txn, prefix)
			defer it.Close()
			for it.Rewind(); it.Valid() && len(keys) < 10*s.chunk; it.Next() {
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
		if err := s.writeUnits(units); err != nil {
			return err
		}
	}
}

// indexChunk indexes the next values of ix's prefix after the key after
// (nil: from the start). It reports the last key done and whether none is left.
func (s *Store) indexChunk(ix *metaIndex, after []byte) ([]byte, bool, error) {
	var units []unit
	p := metaKey(ix.spec.Prefix)
	err := s.db.View(func(txn *badger.Txn) error {
		o := badger.DefaultIteratorOptions
		o.Prefix = p
		it := txn.NewIterator(o)
		defer it.Close()
		it.Seek(p)
		if after != nil {
			it.Seek(after)
			if it.Valid() && bytes.Equal(it.Item().Key(), after) {
				it.Next()
			}
		}
		for ; it.Valid() && len(units) < s.chunk; it.Next() {
			doc, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			key := it.Item().KeyCopy(nil)
			units = append(units, ix.entries(string(key[len(prefixMeta):]), doc))
			after = key
		}
		return nil
	})
	if err != nil || len(units) == 0 {
		return after, true, err
	}
	return after, false, s.writeUnits(units)
}

// metaHook computes the index ops of a batch's meta writes, in order.
type metaHook func(key string, val []byte, del bool) []op

// ops returns the index ops for writing val (or deleting) under key.
func (h metaHook) ops(key string, val []byte, del bool) []op {
	if h == nil {
		return nil
	}
	return h(key, val, del)
}

// metaValue is a meta value that may be absent.
type metaValue struct {
	val []byte
	ok  bool
}

// metaHook takes the lock b's meta writes need and, when b writes indexed
// keys, returns the hook that maintains their index entries. unlock must be
// called once the batch is written.
func (s *Store) metaHook(b *Batch) (metaHook, func(), error) {
	if len(b.Meta)+len(b.MetaDel) == 0 {
		return nil, func() {}, nil
	}
	s.metaMu.RLock()
	if !touchesIndex(s.registry(), b) {
		return nil, s.metaMu.RUnlock, nil
	}
	s.metaMu.RUnlock()
	s.metaMu.Lock()
	reg := s.registry()
	cur := map[string]metaValue{}
	for k := range b.Meta {
		if indexFor(reg, k) != nil {
			cur[k] = metaValue{}
		}
	}
	for _, k := range b.MetaDel {
		if indexFor(reg, k) != nil {
			cur[k] = metaValue{}
		}
	}
	err := s.db.View(func(txn *badger.Txn) error {
		for k := range cur {
			v, ok, err := readMeta(txn, k)
			if err != nil {
				return err
			}
			cur[k] = metaValue{val: v, ok: ok}
		}
		return nil
	})
	if err != nil {
		s.metaMu.Unlock()
		return nil, nil, err
	}
	hook := func(key string, val []byte, del bool) []op {
		ix := indexFor(reg, key)
		if ix == nil {
			return nil
		}
		next := metaValue{val: val, ok: !del}
		ops := ix.transition(key, cur[key], next)
		cur[key] = next
		return ops
	}
	return hook, s.metaMu.Unlock, nil
}

// touchesIndex reports whether b writes or deletes a key of an index in reg.
func touchesIndex(reg map[string]*metaIndex, b *Batch) bool {
	if len(reg) == 0 {
		return false
	}
	for k := range b.Meta {
		if indexFor(reg, k) != nil {
			return true
		}
	}
	for _, k := range b.MetaDel {
		if indexFor(reg, k) != nil {
			return true
		}
	}
	return false
}
