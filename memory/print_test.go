package memory_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// TestLatest: the bank's last episode counts evictions: r1's card c was
// evicted at 7 and d written at 8; r2's only card was written at 3.
func TestLatest(t *testing.T) {
	st := bank(t)
	for _, c := range []struct {
		runs []string
		want int
	}{{nil, 8}, {[]string{"r1"}, 8}, {[]string{"r2"}, 3}, {[]string{"none"}, 0}} {
		t.Run(strings.Join(c.runs, ","), func(t *testing.T) {
			n, err := memory.Latest(context.Background(), st, c.runs)
			require.NoError(t, err)
			require.Equal(t, c.want, n)
		})
	}
}

// TestWriteTables: the query, diff and stats tables, long texts clipped to
// their column (100, 90 and 80 bytes).
func TestWriteTables(t *testing.T) {
	long := strings.Repeat("x", 120)
	a := card("a", "r1", 1, "ask about triggers")
	b := card("b", "r1", 2, long)
	b.EvictedEpisode, b.Retrievals = 6, 3
	b.Utility = []clinic.Utility{{Episode: 3, Q: 0.65}, {Episode: 4, Q: 0.4551}}

	var out bytes.Buffer
	require.NoError(t, memory.WriteHits(&out, []memory.Hit{{Card: a, Score: 0.91234}, {Card: b, Score: 0.5}}))
	require.Equal(t, ""+
		"SCORE  ID  KIND        RUN  EPISODE  EVICTED  UTILITY  TEXT\n"+
		"0.912  a   correction  r1   1        0        -        ask about triggers\n"+
		"0.500  b   correction  r1   2        6        0.455    "+long[:99]+"…\n", out.String())

	out.Reset()
	require.NoError(t, memory.WriteDiff(&out, memory.Diff{From: 1, To: 6, Written: []clinic.Card{a}, Evicted: []clinic.Card{b}}))
	// The summary's cell (45 bytes) sets the ID column: 47 wide with its padding.
	id := func(s string) string { return s + strings.Repeat(" ", 47-len(s)) }
	require.Equal(t, ""+
		"CHANGE     "+id("ID")+"KIND        EPISODE  TEXT\n"+
		"+ written  "+id("a")+"correction  1        ask about triggers\n"+
		"- evicted  "+id("b")+"correction  6        "+long[:89]+"…\n"+
		"           "+id("1 written, 1 evicted between episodes 1 and 6")+"            "+"         \n", out.String())

	out.Reset()
	require.NoError(t, memory.WriteStats(&out, memory.Stats{Total: 2, Live: 1, Evicted: 1, Model: "hash", Dim: 8,
		ByKind: map[clinic.CardKind]int{"success": 2, "correction": 1}, ByBank: map[string]int{"correction": 1}, ByStage: map[int]int{2: 1, 1: 4},
		MostRetrieved: []clinic.Card{b}}))
	// An empty line ends tabwriter's columns: each table aligns on its own.
	require.Equal(t, ""+
		"CARDS  LIVE  EVICTED  EMBEDDER  DIM\n"+
		"2      1     1        hash      8\n"+
		"\n"+
		"KIND        LIVE\n"+
		"correction  1\n"+
		"success     2\n"+
		"\n"+
		"BANK        LIVE\n"+
		"correction  1\n"+
		"\n"+
		"STAGE  LIVE\n"+
		"1      4\n"+
		"2      1\n"+
		"\n"+
		"MOST RETRIEVED  ID  KIND        RUN  EPISODE  TEXT\n"+
		"3               b   correction  r1   2        "+long[:79]+"…\n", out.String())
}
