package memory_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/memory/local"
)

func openBank(t *testing.T) *local.Store {
	t.Helper()
	s, err := local.Open(context.Background(), filepath.Join(t.TempDir(), "memory.db"), memory.HashEmbedder{})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func card(id, run string, created int, text string) clinic.Card {
	return clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardCorrection, Text: text}, SearchText: text,
		Bank: "correction", Run: run, Pass: 1, Stage: 1, SourceCase: "case-" + id, CreatedEpisode: created}
}

// bank holds a: created 1; b: created 2, evicted at 6; c: created 5, evicted
// at 7; d: created 8; e: created 3 by another run.
func bank(t *testing.T) *local.Store {
	ctx := context.Background()
	st := openBank(t)
	require.NoError(t, st.Upsert(ctx, []clinic.Card{card("a", "r1", 1, "ask about triggers of chest pain"), card("b", "r1", 2, "check the urine for nitrites"),
		card("c", "r1", 5, "examine the throat"), card("d", "r1", 8, "ask about thirst"), card("e", "r2", 3, "look at the rash")}))
	require.NoError(t, st.Evict(ctx, []string{"c"}, 7))
	require.NoError(t, st.Evict(ctx, []string{"b"}, 6))
	require.NoError(t, st.MarkRetrieved(ctx, []string{"a"}, 4))
	// a's utility: 0.65 after episode 4, 0.455 after 6 (MemRL's rule with
	// α 0.3 from 0.5: 0.5+0.3·(1−0.5), then 0.65+0.3·(0−0.65)).
	require.NoError(t, st.Credit(ctx, []memory.Credit{{Card: "a", Utility: clinic.Utility{Episode: 4, Q: 0.65, Reward: 1}},
		{Card: "a", Utility: clinic.Utility{Episode: 6, Q: 0.455, Reward: 0}}}))
	return st
}

func ids(cards []clinic.Card) []string {
	out := []string{}
	for _, c := range cards {
		out = append(out, c.ID)
	}
	return out
}

func TestExportImportKeepsTheBankAsOfEveryEpisode(t *testing.T) {
	ctx := context.Background()
	src := bank(t)
	cards, err := src.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, memory.WriteCards(&buf, cards))
	require.Equal(t, len(cards), strings.Count(buf.String(), "\n"), "one card a line")
	read, err := memory.ReadCards(&buf, "bank.jsonl")
	require.NoError(t, err)
	require.Equal(t, cards, read)

	dst := openBank(t)
	for range 2 { // importing again changes nothing
		_, err := memory.Import(ctx, dst, read, false)
		require.NoError(t, err)
	}
	for n := 1; n <= 9; n++ {
		want, err := src.List(ctx, memory.Filter{AsOf: n})
		require.NoError(t, err)
		got, err := dst.List(ctx, memory.Filter{AsOf: n})
		require.NoError(t, err)
		require.Equal(t, ids(want), ids(got), "as of episode %d", n)
		require.Equal(t, memory.Q(want[0], 0.5), memory.Q(got[0], 0.5), "a's utility as of episode %d", n)
	}
	b, err := dst.Get(ctx, "b")
	require.NoError(t, err)
	require.Equal(t, 6, b.EvictedEpisode, "the eviction episode is restored")
	a, err := dst.Get(ctx, "a")
	require.NoError(t, err)
	require.Zero(t, a.Retrievals, "retrieval counts belong to the run that retrieved, and start at zero")
	require.Len(t, a.Utility, 2, "the utility history is restored")

	// An export with a longer history of the same card merges into the bank.
	read[0].Utility = append(read[0].Utility, clinic.Utility{Episode: 9, Q: 0.6, Reward: 1})
	res, err := memory.Import(ctx, dst, read[:1], false)
	require.NoError(t, err)
	require.Equal(t, 1, res.Unchanged)
	a, err = dst.Get(ctx, "a")
	require.NoError(t, err)
	require.Len(t, a.Utility, 3)
}

func TestReadCardsNamesLineAndField(t *testing.T) {
	good := `{"id":"x","kind":"success","run":"r","bank":"success"}`
	tests := []struct {
		name, second, want string
	}{
		{"malformed JSON", `{"id":`, "bank.jsonl:3: not a card"},
		{"unknown field", `{"id":"y","kind":"success","run":"r","bank":"success","colour":"red"}`, `bank.jsonl:3: not a card: json: unknown field "colour"`},
		{"missing id", `{"kind":"success","run":"r"}`, "bank.jsonl:3: field id: required"},
		{"missing kind", `{"id":"y","run":"r"}`, "bank.jsonl:3: field kind: required"},
		{"unknown kind", `{"id":"y","kind":"gossip","run":"r"}`, `bank.jsonl:3: field kind "gossip": want one of success, correction`},
		{"missing run", `{"id":"y","kind":"rule"}`, "bank.jsonl:3: field run: required"},
		{"duplicate id", good, "bank.jsonl:3: field id: duplicate card x (first on line 1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cards, err := memory.ReadCards(strings.NewReader(good+"\n\n"+tc.second+"\n"), "bank.jsonl")
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, cards, "nothing is returned from a bad file")
		})
	}
}

func TestDiffOf(t *testing.T) {
	ctx := context.Background()
	st := bank(t)
	r1 := memory.Filter{Runs: []string{"r1"}}
	tests := []struct {
		name             string
		f                memory.Filter
		from, to         int
		written, evicted []string
	}{
		// As of 4: a, b. As of 8: a, d. c was written and evicted in between.
		{"between two episodes", r1, 4, 8, []string{"d"}, []string{"b"}},
		{"from the empty bank", r1, 0, 5, []string{"a", "b", "c"}, []string{}},
		{"every run", memory.Filter{}, 0, 3, []string{"a", "b", "e"}, []string{}},
		{"evictions only", r1, 5, 7, []string{}, []string{"b", "c"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := memory.DiffOf(ctx, st, tc.f, tc.from, tc.to)
			require.NoError(t, err)
			require.Equal(t, tc.written, ids(d.Written))
			require.Equal(t, tc.evicted, ids(d.Evicted))
			require.Equal(t, tc.from, d.From)
			require.Equal(t, tc.to, d.To)
		})
	}
	for _, bad := range [][2]int{{5, 5}, {6, 2}, {-1, 3}} {
		_, err := memory.DiffOf(ctx, st, r1, bad[0], bad[1])
		require.ErrorContains(t, err, "need 0 <= from < to")
	}
}
