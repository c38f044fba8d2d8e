// Package memory defines the card store the doctor learns from: idempotent
// upserts, soft eviction by episode number, and similarity search "as of" any
// episode. memory/local is the embedded backend.
package memory

import (
	"context"
	"errors"
	"slices"
	"sort"

	"github.com/clinevo/clinevo/clinic"
)

// ErrNotFound is returned by Get for an unknown card ID.
var ErrNotFound = errors.New("memory: card not found")

// Filter selects cards. Zero fields select everything.
type Filter struct {
	// Runs selects the cards written by these runs: a memory lineage (a run and
	// the runs it carries memory from). Empty selects every run.
	Runs  []string
	Bank  string
	Kinds []clinic.CardKind
	Pass  int
	Stage int
	// AsOf selects the cards live after episode AsOf was evolved: created at or
	// before AsOf and not evicted by then. 0 means now (all live cards).
	AsOf int
	// IncludeEvicted selects evicted cards too (ignored when AsOf is set).
	IncludeEvicted bool
}

// Query is a similarity search.
type Query struct {
	Filter
	Text string
	K    int
}

// Hit is one search result.
type Hit struct {
	Card  clinic.Card
	Score float64
}

// Stats summarises a bank.
type Stats struct {
	Total         int                     `json:"total"`
	Live          int                     `json:"live"`
	Evicted       int                     `json:"evicted"`
	ByKind        map[clinic.CardKind]int `json:"by_kind"`  // live cards
	ByBank        map[string]int          `json:"by_bank"`  // live cards
	ByStage       map[int]int             `json:"by_stage"` // live cards
	MostRetrieved []clinic.Card           `json:"most_retrieved"`
	Model         string                  `json:"model"` // the embedder's
	Dim           int                     `json:"dim"`
}

// Store is a card store. Every write is idempotent so activities may retry.
type Store interface {
	// Upsert writes cards by ID; writing the same card twice changes nothing.
	// Fails if the embedder does not match the one the store was created with.
	Upsert(ctx context.Context, cards []clinic.Card) error
	// Search returns up to K live cards most similar to the query text, best first,
	// ties broken by ID.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Get returns one card (live or evicted) or ErrNotFound.
	Get(ctx context.Context, id string) (clinic.Card, error)
	// List returns the cards a filter selects, ordered by creation episode then ID.
	List(ctx context.Context, f Filter) ([]clinic.Card, error)
	// Evict soft-deletes cards at an episode; a card already evicted keeps its
	// first eviction episode.
	Evict(ctx context.Context, ids []string, episode int) error
	// MarkRetrieved counts one retrieval per card per episode: repeating the call
	// for the same episode changes nothing.
	MarkRetrieved(ctx context.Context, ids []string, episode int) error
	// Credit adds utility updates to cards' histories (clinic.Card.Utility):
	// the first update of a card at an episode wins, so repeating it changes
	// nothing; an unknown card is skipped, as Evict skips one. Upsert keeps
	// a card's history, and List and Search as of episode N return it up to N
	// (UtilityAsOf).
	Credit(ctx context.Context, credits []Credit) error
	// Stats summarises the cards a filter selects.
	Stats(ctx context.Context, f Filter) (Stats, error)
	Close() error
}

// Live reports whether a card passes a filter's liveness rule.
func Live(c *clinic.Card, f Filter) bool { return LiveAt(c.CreatedEpisode, c.EvictedEpisode, f) }

// LiveAt is Live for a card created at episode created and evicted at episode
// evicted (0: never), for stores that keep those fields apart from a Card.
func LiveAt(created, evicted int, f Filter) bool {
	if f.AsOf > 0 {
		return created <= f.AsOf && (evicted == 0 || evicted > f.AsOf)
	}
	return f.IncludeEvicted || evicted == 0
}

// Match reports whether a card passes every field of a filter.
func Match(c *clinic.Card, f Filter) bool {
	if len(f.Runs) > 0 && !slices.Contains(f.Runs, c.Run) {
		return false
	}
	if (f.Bank != "" && c.Bank != f.Bank) ||
		(f.Pass != 0 && c.Pass != f.Pass) || (f.Stage != 0 && c.Stage != f.Stage) {
		return false
	}
	if len(f.Kinds) > 0 {
		ok := false
		for _, k := range f.Kinds {
			ok = ok || c.Kind == k
		}
		if !ok {
			return false
		}
	}
	return Live(c, f)
}

// BankOf is the bank a card kind is stored in.
func BankOf(k clinic.CardKind) string {
	switch k {
	case clinic.CardRule:
		return "rules"
	case clinic.CardAdvice:
		return "advice"
	}
	return string(k)
}

// Better reports whether hit a ranks before hit b: higher score, then lower ID.
func Better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Card.ID < b.Card.ID
}

// TopK orders scored hits best first (ties by ID) and keeps k.
func TopK(hits []Hit, k int) []Hit {
	sort.Slice(hits, func(i, j int) bool { return Better(hits[i], hits[j]) })
	if k > 0 && len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// StatsOf summarises the cards a filter selects in any store: it lists them
// all, evicted ones too, and applies the filter's liveness rule.
func StatsOf(ctx context.Context, st Store, f Filter, emb Embedder) (Stats, error) {
	all := f
	all.IncludeEvicted, all.AsOf = true, 0
	cards, err := st.List(ctx, all)
	if err != nil {
		return Stats{}, err
	}
	return Summarise(cards, f, emb), nil
}

// Summarise computes Stats over cards (live or not) under a filter's liveness rule.
func Summarise(cards []clinic.Card, f Filter, emb Embedder) Stats {
	st := Stats{ByKind: map[clinic.CardKind]int{}, ByBank: map[string]int{}, ByStage: map[int]int{}, Model: emb.Model(), Dim: emb.Dim()}
	var live []clinic.Card
	for i := range cards {
		c := cards[i]
		st.Total++
		if !Live(&c, f) {
			st.Evicted++
			continue
		}
		st.Live++
		st.ByKind[c.Kind]++
		st.ByBank[c.Bank]++
		st.ByStage[c.Stage]++
		live = append(live, c)
	}
	sort.SliceStable(live, func(i, j int) bool { return live[i].Retrievals > live[j].Retrievals })
	for _, c := range live {
		if len(st.MostRetrieved) == 5 || c.Retrievals == 0 {
			break
		}
		st.MostRetrieved = append(st.MostRetrieved, c)
	}
	return st
}
