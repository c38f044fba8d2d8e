package local_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/corpus/synth"
	"github.com/clinevo/clinevo/internal/benchsize"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
)

// BenchmarkSearch measures query latency of the local bank at 1K, 10K and 100K
// cards (K = 5, as-of filter on), and reports p50 and p99; at
// benchsize.Small at 1K cards only.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	var texts []string
	for _, c := range synth.Generate(7)["stream"] {
		texts = append(texts, c.Patient.OpeningComplaint+" "+c.Patient.Facts[0].Text)
	}
	for _, n := range benchsize.Pick([]int{1000, 10000, 100000}, []int{1000}) {
		b.Run(fmt.Sprintf("cards-%d", n), func(b *testing.B) {
			st, err := local.Open(ctx, filepath.Join(b.TempDir(), "m.db"), memory.HashEmbedder{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			batch := make([]clinic.Card, 0, 1000)
			for i := 0; i < n; i++ {
				text := texts[i%len(texts)]
				batch = append(batch, clinic.Card{CardHint: clinic.CardHint{ID: fmt.Sprintf("c%07d", i), Kind: clinic.CardSuccess, Text: text},
					SearchText: text, Bank: "success", Run: "bench", Pass: 1, Stage: 1, CreatedEpisode: i/100 + 1})
				if len(batch) == cap(batch) {
					if err := st.Upsert(ctx, batch); err != nil {
						b.Fatal(err)
					}
					batch = batch[:0]
				}
			}
			var lat []time.Duration
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				if _, err := st.Search(ctx, memory.Query{Text: texts[i%len(texts)], K: 5, Filter: memory.Filter{Runs: []string{"bench"}, AsOf: n / 200}}); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(start))
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
