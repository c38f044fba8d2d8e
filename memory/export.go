package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/internal/jsonl"
)

// The export format of a bank is JSONL, one clinic.Card a line, evicted cards
// included (with the episode that evicted them), so that another run or backend
// can be seeded with the bank as it was at any episode.

// WriteCards writes cards in the export format.
func WriteCards(w io.Writer, cards []clinic.Card) error {
	enc := json.NewEncoder(w)
	for i := range cards {
		if err := enc.Encode(&cards[i]); err != nil {
			return fmt.Errorf("memory: write card %s: %w", cards[i].ID, err)
		}
	}
	return nil
}

// ReadCards reads an export and checks every line before returning, so that an
// import of a bad file writes nothing. Errors name the file, the line and the
// field: malformed JSON, an unknown field, a missing id, kind or run, an
// unknown kind, a duplicate id.
func ReadCards(r io.Reader, name string) ([]clinic.Card, error) {
	var out []clinic.Card
	seen := map[string]int{}
	kinds := []clinic.CardKind{clinic.CardSuccess, clinic.CardCorrection, clinic.CardRule, clinic.CardAdvice, clinic.CardSummary}
	err := jsonl.Read(r, name, func(line int, raw []byte) error {
		var c clinic.Card
		if err := jsonl.Strict(raw, &c); err != nil {
			return fmt.Errorf("not a card: %v", err)
		}
		switch {
		case c.ID == "":
			return errors.New("field id: required")
		case c.Kind == "":
			return errors.New("field kind: required")
		case !slices.Contains(kinds, c.Kind):
			return fmt.Errorf("field kind: unknown kind %q, want one of %v", c.Kind, kinds)
		case c.Run == "":
			return errors.New("field run: required")
		}
		if first, ok := seen[c.ID]; ok {
			return fmt.Errorf("field id: duplicate card %s (first on line %d)", c.ID, first)
		}
		seen[c.ID] = line
		out = append(out, c)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Import writes exported cards into a store and replays their evictions,
// earliest episode first, so that the bank as of any episode is what it was in
// the export. Upsert starts retrieval counts at zero: they belong to the run
// that retrieved the cards. Importing the same cards twice changes nothing.
func Import(ctx context.Context, st Store, cards []clinic.Card) error {
	if err := st.Upsert(ctx, cards); err != nil {
		return fmt.Errorf("memory: import: %w", err)
	}
	byEpisode := map[int][]string{}
	for _, c := range cards {
		if c.EvictedEpisode > 0 {
			byEpisode[c.EvictedEpisode] = append(byEpisode[c.EvictedEpisode], c.ID)
		}
	}
	episodes := make([]int, 0, len(byEpisode))
	for n := range byEpisode {
		episodes = append(episodes, n)
	}
	sort.Ints(episodes)
	for _, n := range episodes {
		if err := st.Evict(ctx, byEpisode[n], n); err != nil {
			return fmt.Errorf("memory: import: evictions of episode %d: %w", n, err)
		}
	}
	return nil
}

// Diff is how a bank changed between two episodes.
type Diff struct {
	From, To int
	Written  []clinic.Card // live after episode To and not after From
	Evicted  []clinic.Card // live after episode From and not after To
}

// DiffOf compares the cards a filter selects as of episode from (0: the empty
// bank) and as of episode to. A card written and evicted between the two is in
// neither list: it was not there before and is not there after.
func DiffOf(ctx context.Context, st Store, f Filter, from, to int) (Diff, error) {
	if from < 0 || to <= from {
		return Diff{}, fmt.Errorf("memory: diff: need 0 <= from < to, got from %d and to %d", from, to)
	}
	all := f
	all.AsOf, all.IncludeEvicted = 0, true
	cards, err := st.List(ctx, all)
	if err != nil {
		return Diff{}, fmt.Errorf("memory: diff: %w", err)
	}
	d := Diff{From: from, To: to}
	at := func(c *clinic.Card, n int) bool {
		if n == 0 {
			return false
		}
		g := f
		g.AsOf = n
		return Match(c, g)
	}
	for i := range cards {
		c := &cards[i]
		was, is := at(c, from), at(c, to)
		switch {
		case is && !was:
			d.Written = append(d.Written, *c)
		case was && !is:
			d.Evicted = append(d.Evicted, *c)
		}
	}
	return d, nil
}
