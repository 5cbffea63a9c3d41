package store

import (
	"fmt"
	"testing"
)

// benchBatch is one engine step: one record and one delivery.
func benchBatch(i int) *Batch {
	return &Batch{
		Records: []Record{{Kind: "message", Agent: "dev", From: "lead", To: []string{"dev"}, Type: "task",
			Task: "T-1", MsgID: fmt.Sprint("m", i), Body: "please implement the store package and report back"}},
		Enqueue: []Delivery{{Agent: "dev", Kind: "relay", Text: "please implement the store package and report back"}},
	}
}

func BenchmarkCommit(b *testing.B) {
	for _, synced := range []bool{false, true} {
		b.Run(fmt.Sprintf("sync=%v", synced), func(b *testing.B) {
			s := openT(b, b.TempDir(), Options{Sync: synced})
			i := 0
			for b.Loop() {
				if err := s.Commit(benchBatch(i)); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("sync=%v/parallel", synced), func(b *testing.B) {
			s := openT(b, b.TempDir(), Options{Sync: synced})
			b.SetParallelism(4) // 4×GOMAXPROCS committers, as many agents would produce
			b.RunParallel(func(pb *testing.PB) {
				for i := 0; pb.Next(); i++ {
					if err := s.Commit(benchBatch(i)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

func BenchmarkQueryAgent(b *testing.B) {
	s := openT(b, b.TempDir(), Options{})
	for i := range 20000 {
		batch := benchBatch(i)
		batch.Records[0].Agent = fmt.Sprint("agent", i%50)
		batch.Records[0].To = nil
		batch.Records[0].From = ""
		if err := s.Commit(batch); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		recs, err := s.Query(Query{Agent: "agent7", Limit: 100})
		if err != nil || len(recs) != 100 {
			b.Fatal(len(recs), err)
		}
	}
}
