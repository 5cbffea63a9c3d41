package node

import "testing"

// The ids of read deliveries are kept, the latest maxReadIDs of them: an
// id offered again is known, and the oldest go first.
func TestReadIDs(t *testing.T) {
	var r readIDs
	for id := uint64(1); id <= maxReadIDs+10; id++ {
		r.add(id)
		r.add(id) // twice is once
	}
	if len(r.order) != maxReadIDs || len(r.seen) != maxReadIDs {
		t.Fatalf("kept %d ids (%d known), want %d", len(r.order), len(r.seen), maxReadIDs)
	}
	if r.has(10) || !r.has(11) || !r.has(maxReadIDs+10) {
		t.Errorf("has 10: %v, 11: %v, the latest: %v; want false, true, true", r.has(10), r.has(11), r.has(maxReadIDs+10))
	}
}
