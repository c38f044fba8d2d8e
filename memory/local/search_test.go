package local_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
)

// nearTies embeds "t<i>" as one shared unit vector nudged by i·1e-6 along
// dimension i mod Dim: every score is within a few millionths of the others,
// far below what the int8 prefilter can tell apart, and "t<i>" with the same i
// embed identically. Other texts get a dense pseudo-random unit vector.
type nearTies struct{ D int }

func (e nearTies) Model() string { return "near-ties" }
func (e nearTies) Dim() int      { return e.D }
func (e nearTies) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for k, t := range texts {
		v := make([]float32, e.D)
		var i int
		if _, err := fmt.Sscanf(t, "t%d", &i); err == nil {
			for j := range v {
				v[j] = float32(1 + j%7)
			}
			v[i%e.D] += float32(i) * 1e-6 * float32(e.D)
		} else {
			r := rand.New(rand.NewPCG(uint64(len(t)), uint64(t[0])))
			for j := range v {
				v[j] = float32(r.NormFloat64())
			}
		}
		memory.Normalize(v)
		out[k] = v
	}
	return out, nil
}

// exactScan is the plain search every store must agree with: every card the
// filter selects scored by memory.Cosine, ordered by memory.Better, best K.
func exactScan(t *testing.T, embed func(string) []float32, cards map[string]clinic.Card, q memory.Query) []memory.Hit {
	t.Helper()
	qv := embed(q.Text)
	var hits []memory.Hit
	for _, c := range cards {
		if memory.Match(&c, q.Filter) {
			hits = append(hits, memory.Hit{Card: c, Score: memory.Cosine(qv, embed(c.SearchText))})
		}
	}
	return memory.TopK(hits, q.K)
}

type scored struct {
	ID    string
	Score float64
}

func summary(hits []memory.Hit) []scored {
	out := make([]scored, len(hits))
	for i, h := range hits {
		out[i] = scored{h.Card.ID, h.Score}
	}
	return out
}

// TestSearchIsExact compares Search with exactScan over random banks (sizes
// around the prefilter's block of 1,024 cards), random evictions and
// rewrites, and random filters, for a sparse and a dense embedder, before and
// after reopening the file.
func TestSearchIsExact(t *testing.T) {
	words := strings.Fields("tight chest stairs burning urine fever rash itchy headache dizzy cough swollen ankle tired low mood throat")
	tests := []struct {
		name  string
		emb   memory.Embedder
		n     int
		texts func(r *rand.Rand) string
	}{
		{"hashing, 1 card", memory.HashEmbedder{D: 64}, 1, nil},
		{"hashing, 1023 cards", memory.HashEmbedder{D: 64}, 1023, nil},
		{"hashing, 2500 cards", memory.HashEmbedder{}, 2500, nil},
		{"near ties, 1025 cards", nearTies{D: 30}, 1025, func(r *rand.Rand) string { return fmt.Sprintf("t%d", r.IntN(300)) }},
	}
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			r := rand.New(rand.NewPCG(uint64(ti), 16))
			text := tc.texts
			if text == nil {
				// A few word pairs, so that many cards share a text and tie.
				text = func(r *rand.Rand) string { return words[r.IntN(6)] + " " + words[r.IntN(len(words))] }
			}
			path := filepath.Join(t.TempDir(), "m.db")
			st, err := local.Open(ctx, path, tc.emb)
			require.NoError(t, err)
			defer func() { st.Close() }()
			banks := []struct {
				bank string
				kind clinic.CardKind
			}{{"success", clinic.CardSuccess}, {"correction", clinic.CardCorrection}, {"advice", clinic.CardAdvice}}
			cards := map[string]clinic.Card{}
			var batch []clinic.Card
			for i := range tc.n {
				b := banks[r.IntN(len(banks))]
				s := text(r)
				c := clinic.Card{CardHint: clinic.CardHint{ID: fmt.Sprintf("c%05d", r.IntN(tc.n*2)), Kind: b.kind, Text: s}, SearchText: s,
					Bank: b.bank, Run: fmt.Sprintf("r%d", 1+r.IntN(3)), Pass: 1 + r.IntN(2), Stage: 1 + r.IntN(4), CreatedEpisode: 1 + i/20}
				if old, ok := cards[c.ID]; ok {
					c.EvictedEpisode = old.EvictedEpisode // a rewrite keeps the eviction
				}
				cards[c.ID] = c
				batch = append(batch, c)
				if len(batch) == 100 || i == tc.n-1 {
					require.NoError(t, st.Upsert(ctx, batch))
					batch = batch[:0]
				}
			}
			var evict []string
			for id, c := range cards {
				if r.IntN(4) == 0 {
					evict = append(evict, id)
					c.EvictedEpisode = c.CreatedEpisode + 1 + r.IntN(10)
					cards[id] = c
					require.NoError(t, st.Evict(ctx, []string{id}, c.EvictedEpisode))
				}
			}
			randomQuery := func() memory.Query {
				q := memory.Query{Text: text(r), K: []int{1, 5, 17}[r.IntN(3)]}
				if r.IntN(2) == 0 {
					q.Runs = []string{"r1", "r3", "r9"}[:1+r.IntN(3)]
				}
				switch r.IntN(4) {
				case 0:
					q.Bank = banks[r.IntN(len(banks))].bank
				case 1:
					q.Kinds = []clinic.CardKind{clinic.CardSuccess, clinic.CardAdvice}
				}
				if r.IntN(3) == 0 {
					q.Pass = 1 + r.IntN(2)
				}
				if r.IntN(3) == 0 {
					q.Stage = 1 + r.IntN(4)
				}
				switch r.IntN(3) {
				case 0:
					q.AsOf = 1 + r.IntN(tc.n/20+5)
				case 1:
					q.IncludeEvicted = true
				}
				return q
			}
			vecs := map[string][]float32{}
			embed := func(s string) []float32 {
				if v, ok := vecs[s]; ok {
					return v
				}
				v, err := tc.emb.Embed(ctx, []string{s})
				require.NoError(t, err)
				vecs[s] = v[0]
				return v[0]
			}
			check := func(label string) {
				for range 60 {
					q := randomQuery()
					got, err := st.Search(ctx, q)
					require.NoError(t, err)
					require.Equal(t, summary(exactScan(t, embed, cards, q)), summary(got), "%s: query %+v", label, q)
				}
			}
			check("open")
			require.NoError(t, st.Close())
			st, err = local.Open(ctx, path, tc.emb)
			require.NoError(t, err)
			check("reopened")
		})
	}
}

func TestSearchRefusesNonFiniteVectors(t *testing.T) {
	ctx := context.Background()
	st, err := local.Open(ctx, filepath.Join(t.TempDir(), "m.db"), nanEmbedder{})
	require.NoError(t, err)
	defer st.Close()
	err = st.Upsert(ctx, []clinic.Card{{CardHint: clinic.CardHint{ID: "x"}, SearchText: "nan"}})
	require.ErrorContains(t, err, "card x: vector value 1 is NaN, want a finite number")
	_, err = st.Search(ctx, memory.Query{Text: "nan", K: 1})
	require.ErrorContains(t, err, "query: vector value 1 is NaN")
	cards, err := st.List(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Empty(t, cards, "nothing written")
}

type nanEmbedder struct{}

func (nanEmbedder) Model() string { return "nan" }
func (nanEmbedder) Dim() int      { return 2 }
func (nanEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		out[i] = []float32{1, float32(math.NaN())}
	}
	return out, nil
}

// TestListOrder checks List against a sort of the test's own cards.
func TestListOrder(t *testing.T) {
	ctx := context.Background()
	st := open(t, filepath.Join(t.TempDir(), "m.db"))
	// Written as id5 (episode 3), id4 (1), id3 (2), id2 (1), id1 (3).
	for i, created := range []int{3, 1, 2, 1, 3} {
		require.NoError(t, st.Upsert(ctx, []clinic.Card{card(fmt.Sprintf("id%d", 5-i), created, "cough")}))
	}
	got, err := st.List(ctx, memory.Filter{})
	require.NoError(t, err)
	ids := make([]string, len(got))
	for i, c := range got {
		ids[i] = c.ID
	}
	require.Equal(t, []string{"id2", "id4", "id3", "id1", "id5"}, ids, "by creation episode, then ID")
}
