package tasks

import (
	"strings"
	"testing"
)

// BenchmarkValidateReviewPathological: 64 KiB bodies (the envelope limit)
// built to hit the splitting loops stay fast.
func BenchmarkValidateReviewPathological(b *testing.B) {
	bodies := []string{
		"commands:\n- x" + strings.Repeat(" (a", 20000) + "\n",
		"commands:\n- x" + strings.Repeat(": a", 20000) + "\n",
		"commands:\n- x" + strings.Repeat(" (", 30000) + ")\n",
		"commands:\n" + strings.Repeat("- a\n", 16000) + "failures:\n" + strings.Repeat("- b: regression\n", 4000),
		strings.Repeat("`", 65536),
	}
	for i := 0; i < b.N; i++ {
		for _, body := range bodies {
			ValidateReview(nil, body)
		}
	}
}
