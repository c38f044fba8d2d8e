// Package memorytest is the conformance suite every memory.Store passes: the
// same tests against memory/local and memory/qdrant.
package memorytest

import (
	"context"
	"fmt"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
)

// Open returns a fresh, empty store for one test.
type Open func(t *testing.T) memory.Store

// Run runs the suite.
func Run(t *testing.T, open Open) {
	t.Run("as-of with evictions", func(t *testing.T) { asOf(t, open(t)) })
	t.Run("idempotent writes", func(t *testing.T) { idempotent(t, open(t)) })
	t.Run("filters", func(t *testing.T) { filters(t, open(t)) })
	t.Run("search order", func(t *testing.T) { searchOrder(t, open(t)) })
	t.Run("stats", func(t *testing.T) { stats(t, open(t)) })
	t.Run("utility as of", func(t *testing.T) { utilityAsOf(t, open(t)) })
	t.Run("utility idempotent", func(t *testing.T) { utilityIdempotent(t, open(t)) })
}

// Card builds a test card written after episode created.
func Card(id string, created int, text string) clinic.Card {
	return clinic.Card{CardHint: clinic.CardHint{ID: id, Kind: clinic.CardSuccess, Text: text}, SearchText: text,
		Bank: "success", Run: "r1", Pass: 1, Stage: 1 + created/5, CreatedEpisode: created, SourceCase: "case-" + id}
}

// ID makes a UUID-shaped card ID (Qdrant point IDs are UUIDs).
func ID(n int) string { return fmt.Sprintf("00000000-0000-4000-8000-%012d", n) }

func ids(cards []clinic.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	sort.Strings(out)
	return out
}

func asOf(t *testing.T, s memory.Store) {
	ctx := context.Background()
	// Card n is written after episode n; evictions: 1 at 4, 2 at 6, 5 at 9.
	for n := 1; n <= 10; n++ {
		require.NoError(t, s.Upsert(ctx, []clinic.Card{Card(ID(n), n, fmt.Sprintf("chest pain case %d", n))}))
		switch n {
		case 4:
			require.NoError(t, s.Evict(ctx, []string{ID(1)}, 4))
		case 6:
			require.NoError(t, s.Evict(ctx, []string{ID(2)}, 6))
		case 9:
			require.NoError(t, s.Evict(ctx, []string{ID(5)}, 9))
		}
	}
	want := map[int][]int{1: {1}, 3: {1, 2, 3}, 4: {2, 3, 4}, 5: {2, 3, 4, 5}, 6: {3, 4, 5, 6}, 8: {3, 4, 5, 6, 7, 8},
		9: {3, 4, 6, 7, 8, 9}, 10: {3, 4, 6, 7, 8, 9, 10}}
	for at, ns := range want {
		var w []string
		for _, n := range ns {
			w = append(w, ID(n))
		}
		sort.Strings(w)
		got, err := s.List(ctx, memory.Filter{AsOf: at})
		require.NoError(t, err)
		require.Equal(t, w, ids(got), "list as of %d", at)
		hits, err := s.Search(ctx, memory.Query{Text: "chest pain", K: 100, Filter: memory.Filter{AsOf: at}})
		require.NoError(t, err)
		var hs []clinic.Card
		for _, h := range hits {
			hs = append(hs, h.Card)
		}
		require.Equal(t, w, ids(hs), "search as of %d", at)
	}
	live, err := s.List(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Len(t, live, 7)
	c5, err := s.Get(ctx, ID(5))
	require.NoError(t, err)
	require.Equal(t, 9, c5.EvictedEpisode)
	all, err := s.List(ctx, memory.Filter{IncludeEvicted: true})
	require.NoError(t, err)
	require.Len(t, all, 10)
	for i := 1; i < len(all); i++ {
		require.LessOrEqual(t, all[i-1].CreatedEpisode, all[i].CreatedEpisode, "ordered by creation")
	}
}

func idempotent(t *testing.T, s memory.Store) {
	ctx := context.Background()
	a := Card(ID(1), 1, "sore throat fever")
	require.NoError(t, s.Upsert(ctx, []clinic.Card{a}))
	require.NoError(t, s.Evict(ctx, []string{ID(1)}, 3))
	require.NoError(t, s.Evict(ctx, []string{ID(1)}, 5))
	require.NoError(t, s.Upsert(ctx, []clinic.Card{a}))
	got, err := s.Get(ctx, ID(1))
	require.NoError(t, err)
	require.Equal(t, 3, got.EvictedEpisode, "a replayed write does not resurrect; the first eviction stays")
	b := Card(ID(2), 1, "sore throat fever")
	require.NoError(t, s.Upsert(ctx, []clinic.Card{b}))
	for range 3 {
		require.NoError(t, s.MarkRetrieved(ctx, []string{ID(2)}, 2))
	}
	require.NoError(t, s.MarkRetrieved(ctx, []string{ID(2)}, 3))
	require.NoError(t, s.Upsert(ctx, []clinic.Card{b}))
	got, err = s.Get(ctx, ID(2))
	require.NoError(t, err)
	require.Equal(t, 2, got.Retrievals, "one count per episode, kept across rewrites")
	require.Equal(t, b.Text, got.Text)
	_, err = s.Get(ctx, ID(99))
	require.ErrorIs(t, err, memory.ErrNotFound)
}

func filters(t *testing.T, s memory.Store) {
	ctx := context.Background()
	var cards []clinic.Card
	for n := 1; n <= 8; n++ {
		c := Card(ID(n), n, "headache with nausea")
		c.Run = []string{"r1", "r2"}[n%2]
		c.Pass = 1 + n%2
		if n > 4 {
			c.Kind, c.Bank = clinic.CardCorrection, "correction"
		}
		cards = append(cards, c)
	}
	require.NoError(t, s.Upsert(ctx, cards))
	count := func(f memory.Filter) int {
		got, err := s.List(ctx, f)
		require.NoError(t, err)
		hits, err := s.Search(ctx, memory.Query{Text: "headache", K: 100, Filter: f})
		require.NoError(t, err)
		require.Len(t, hits, len(got), "search and list agree on %+v", f)
		return len(got)
	}
	require.Equal(t, 8, count(memory.Filter{}))
	require.Equal(t, 4, count(memory.Filter{Runs: []string{"r1"}}))
	require.Equal(t, 8, count(memory.Filter{Runs: []string{"r1", "r2"}}))
	require.Equal(t, 4, count(memory.Filter{Kinds: []clinic.CardKind{clinic.CardCorrection}}))
	require.Equal(t, 4, count(memory.Filter{Bank: "success"}))
	require.Equal(t, 4, count(memory.Filter{Pass: 2}))
	require.Equal(t, 4, count(memory.Filter{Stage: 2}))
	require.Equal(t, 2, count(memory.Filter{Runs: []string{"r2"}, Kinds: []clinic.CardKind{clinic.CardSuccess}}))
}

func searchOrder(t *testing.T, s memory.Store) {
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []clinic.Card{
		Card(ID(1), 1, "burning pain behind the breastbone after meals"),
		Card(ID(2), 1, "tight chest when walking uphill"),
		Card(ID(3), 1, "tight chest when walking uphill"), // a tie with 2: broken by ID
		Card(ID(4), 1, "itchy rash on the elbows"),
	}))
	hits, err := s.Search(ctx, memory.Query{Text: "my chest goes tight when I walk uphill", K: 3})
	require.NoError(t, err)
	require.Len(t, hits, 3)
	require.Equal(t, []string{ID(2), ID(3)}, []string{hits[0].Card.ID, hits[1].Card.ID})
	require.InDelta(t, hits[0].Score, hits[1].Score, 1e-6)
	require.Greater(t, hits[1].Score, hits[2].Score)
}

func stats(t *testing.T, s memory.Store) {
	ctx := context.Background()
	for n := 1; n <= 4; n++ {
		require.NoError(t, s.Upsert(ctx, []clinic.Card{Card(ID(n), n, "cough")}))
	}
	require.NoError(t, s.Evict(ctx, []string{ID(1)}, 4))
	require.NoError(t, s.MarkRetrieved(ctx, []string{ID(3)}, 4))
	st, err := s.Stats(ctx, memory.Filter{})
	require.NoError(t, err)
	require.Equal(t, 4, st.Total)
	require.Equal(t, 3, st.Live)
	require.Equal(t, 1, st.Evicted)
	require.Equal(t, 3, st.ByKind[clinic.CardSuccess])
	require.Equal(t, ID(3), st.MostRetrieved[0].ID)
}

// credit is a utility update of card n at an episode.
func credit(n, episode int, q, reward float64) memory.Credit {
	return memory.Credit{Card: ID(n), Utility: clinic.Utility{Episode: episode, Q: q, Reward: reward, State: fmt.Sprintf("state %d", episode)}}
}

// utilityOf is card n's latest utility in cards (-1: not there).
func utilityOf(cards []clinic.Card, n int) float64 {
	for _, c := range cards {
		if c.ID == ID(n) {
			return memory.Q(c, 0.5)
		}
	}
	return -1
}

func utilityAsOf(t *testing.T, s memory.Store) {
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []clinic.Card{Card(ID(1), 1, "fever and cough"), Card(ID(2), 1, "fever and rash")}))
	// Card 1 is credited at episodes 2, 3 and 5; card 2 never (initial 0.5).
	require.NoError(t, s.Credit(ctx, []memory.Credit{credit(1, 2, 0.65, 1)}))
	require.NoError(t, s.Credit(ctx, []memory.Credit{credit(1, 3, 0.455, 0), credit(1, 5, 0.6185, 1)}))
	for at, want := range map[int]float64{1: 0.5, 2: 0.65, 3: 0.455, 4: 0.455, 5: 0.6185, 0: 0.6185} {
		got, err := s.List(ctx, memory.Filter{AsOf: at})
		require.NoError(t, err)
		require.InDelta(t, want, utilityOf(got, 1), 1e-12, "list as of %d", at)
		require.InDelta(t, 0.5, utilityOf(got, 2), 1e-12, "card 2 never credited")
		hits, err := s.Search(ctx, memory.Query{Text: "fever", K: 10, Filter: memory.Filter{AsOf: at}})
		require.NoError(t, err)
		var cards []clinic.Card
		for _, h := range hits {
			cards = append(cards, h.Card)
		}
		require.InDelta(t, want, utilityOf(cards, 1), 1e-12, "search as of %d", at)
	}
	got, err := s.List(ctx, memory.Filter{AsOf: 3})
	require.NoError(t, err)
	require.Equal(t, []clinic.Utility{credit(1, 2, 0.65, 1).Utility, credit(1, 3, 0.455, 0).Utility}, got[0].Utility, "the history up to episode 3, in order")
	// A rewrite of the card keeps its history; an unknown card is skipped.
	require.NoError(t, s.Upsert(ctx, []clinic.Card{Card(ID(1), 1, "fever and cough")}))
	require.NoError(t, s.Credit(ctx, []memory.Credit{credit(99, 5, 1, 1)}))
	c1, err := s.Get(ctx, ID(1))
	require.NoError(t, err)
	require.Len(t, c1.Utility, 3)
	require.Equal(t, "state 5", c1.Utility[2].State)
}

func utilityIdempotent(t *testing.T, s memory.Store) {
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []clinic.Card{Card(ID(1), 1, "headache")}))
	first := []memory.Credit{credit(1, 4, 0.8, 1)}
	for range 3 {
		require.NoError(t, s.Credit(ctx, first))
	}
	// A different value for the same card and episode (a retry that
	// computed otherwise) changes nothing: the first write wins.
	require.NoError(t, s.Credit(ctx, []memory.Credit{credit(1, 4, 0.1, 0)}))
	c, err := s.Get(ctx, ID(1))
	require.NoError(t, err)
	require.Equal(t, []clinic.Utility{first[0].Utility}, c.Utility)
	require.Error(t, s.Credit(ctx, []memory.Credit{credit(1, 0, 0.5, 1)}), "episode 0 is refused")
}

// RequireMemRLHistories checks a stream's bank against MemRL's update: every
// card's history starts from initial, each entry's reward is the S recorded
// for its episode (scores, by episode number) and its utility is the one
// before moved by alpha·(reward − utility). It returns the number of updates.
func RequireMemRLHistories(t testing.TB, cards []clinic.Card, scores map[int]float64, alpha, initial float64) int {
	t.Helper()
	n := 0
	for _, c := range cards {
		q := initial
		for _, u := range c.Utility {
			require.InDelta(t, scores[u.Episode], u.Reward, 1e-12, "card %s, episode %d: the reward is the recorded S", c.ID, u.Episode)
			require.InDelta(t, q+alpha*(u.Reward-q), u.Q, 1e-12, "card %s, episode %d", c.ID, u.Episode)
			q = u.Q
			n++
		}
	}
	return n
}
