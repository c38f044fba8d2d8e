package memory_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// TestAskedCheck: a query that cannot mean anything is refused, naming the
// flag and what it wants.
func TestAskedCheck(t *testing.T) {
	ok := memory.Asked{Text: "chest pain"}
	require.NoError(t, ok.Check())
	for _, tc := range []struct {
		name string
		q    memory.Asked
		want string
	}{
		{"no text", memory.Asked{Text: "  "}, `memory query: TEXT is empty: give the words to search for, e.g. memory query "chest pain on exertion"`},
		{"negative episode", memory.Asked{Text: "x", Filter: memory.Filter{AsOf: -1}}, "memory query: --as-of -1: want an episode number, 0 or more (0: the empty bank; without --as-of: now)"},
		{"no card", memory.Asked{Text: "x", TopGiven: true}, "memory query: --top 0: want at least 1 card (without --top: memory.k)"},
		{"unknown bank", memory.Asked{Text: "x", Filter: memory.Filter{Bank: "gossip"}}, `memory query: --bank "gossip": want one of ` + strings.Join(memory.Banks(), ", ")},
		{"unknown kind", memory.Asked{Text: "x", KindNames: []string{"success", "gossip"}}, `memory query: --kind "gossip": want one of ` + strings.Join(memory.Kinds(), ", ")},
	} {
		t.Run(tc.name, func(t *testing.T) { require.EqualError(t, tc.q.Check(), tc.want) })
	}
}

// TestAskedSearch: K cards unless Top is given; the kinds and episode
// asked; as of episode 0 (given) the empty bank, as an empty list.
func TestAskedSearch(t *testing.T) {
	ctx := context.Background()
	st := bank(t)
	hits, err := memory.Asked{Text: "ask about chest pain"}.Search(ctx, st, 2)
	require.NoError(t, err)
	require.Len(t, hits, 2, "k cards: a, d and e are live now")
	hits, err = memory.Asked{Text: "ask about chest pain", Top: 1, TopGiven: true}.Search(ctx, st, 2)
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, "a", hits[0].Card.ID)
	hits, err = memory.Asked{Text: "urine", Filter: memory.Filter{AsOf: 5, Runs: []string{"r1"}}}.Search(ctx, st, 5)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"a", "b", "c"}, hitIDs(hits), "as of episode 5, run r1")
	hits, err = memory.Asked{Text: "urine", KindNames: []string{"success"}}.Search(ctx, st, 5)
	require.NoError(t, err)
	require.Empty(t, hits, "every card of the bank is a correction")
	hits, err = memory.Asked{Text: "urine", AsOfGiven: true}.Search(ctx, st, 5)
	require.NoError(t, err)
	require.NotNil(t, hits)
	require.Empty(t, hits, "as of episode 0 the bank is empty")
}

func hitIDs(hits []memory.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Card.ID)
	}
	return out
}

// TestDiffAsked: the episodes and runs of a diff are checked, naming the
// flags; without To the diff runs to now: the latest episode any card
// names, and at least one after From.
func TestDiffAsked(t *testing.T) {
	ctx := context.Background()
	st := bank(t)
	require.NoError(t, memory.DiffAsked{From: 4}.Check())
	require.EqualError(t, memory.DiffAsked{From: 4, To: 4, ToGiven: true}.Check(), "memory diff: --from 4 --to 4: need 0 <= from < to, got from 4 and to 4")
	require.EqualError(t, memory.DiffAsked{From: -1}.Check(), "memory diff: --from -1 --to 0: need 0 <= from < to, got from -1 and to 0")
	require.ErrorContains(t, memory.DiffAsked{Runs: []string{"r1", "a b"}}.Check(), "memory diff: --run: ")

	// The latest episode of run r1's cards is 8 (d written).
	d, err := memory.DiffAsked{From: 4, Runs: []string{"r1"}}.Diff(ctx, st)
	require.NoError(t, err)
	require.Equal(t, 8, d.To)
	require.Equal(t, []string{"d"}, ids(d.Written))
	require.Equal(t, []string{"b"}, ids(d.Evicted))
	d, err = memory.DiffAsked{From: 9}.Diff(ctx, st)
	require.NoError(t, err)
	require.Equal(t, 10, d.To, "past the latest episode: one after From")
	d, err = memory.DiffAsked{From: 0, To: 3, ToGiven: true}.Diff(ctx, st)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "e"}, ids(d.Written))
}

// TestReadCardsFile: an export file's cards; a file that cannot be opened
// is an error of the import, naming it.
func TestReadCardsFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bank.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(`{"id":"x","kind":"success","run":"r","bank":"success"}`+"\n"), 0o644))
	cards, err := memory.ReadCardsFile(path)
	require.NoError(t, err)
	require.Equal(t, []string{"x"}, ids(cards))
	_, err = memory.ReadCardsFile(path + ".none")
	require.ErrorContains(t, err, "memory import: open "+path+".none: ")
}

// TestImportResultWrite: each replaced card, then the counts; the cards
// imported are those added, unchanged and replaced.
func TestImportResultWrite(t *testing.T) {
	r := memory.ImportResult{Added: 3, Unchanged: 1, Replaced: []clinic.Card{card("b", "r1", 2, "old")}}
	var out strings.Builder
	r.Write(&out, "bank.jsonl")
	require.Equal(t, "replaced card b (a correction card of run r1, episode 2)\n"+
		"imported 5 cards from bank.jsonl: 3 new, 1 already in the bank unchanged, 1 replaced\n", out.String())
}
