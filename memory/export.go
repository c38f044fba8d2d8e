package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/internal/jsonl"
)

// The export format of a bank is JSONL, one clinic.Card a line, evicted cards
// included (with the episode that evicted them), so that another run or backend
// can be seeded with the bank as it was at any episode.

// WriteCards writes cards in the export format. It refuses a card that
// ReadCards would refuse (ValidateCard, MaxCardLine), naming it, so that
// every export imports.
func WriteCards(w io.Writer, cards []clinic.Card) error {
	for i := range cards {
		if err := ValidateCard(&cards[i]); err != nil {
			return fmt.Errorf("memory: write card %s: %w", cards[i].ID, err)
		}
		b, err := json.Marshal(&cards[i])
		if err != nil {
			return fmt.Errorf("memory: write card %s: %w", cards[i].ID, err)
		}
		if len(b) > MaxCardLine {
			return fmt.Errorf("memory: write card %s: %d bytes of JSON; a card takes at most %d (16 MiB)", cards[i].ID, len(b), MaxCardLine)
		}
		if _, err := w.Write(append(b, '\n')); err != nil {
			return fmt.Errorf("memory: write card %s: %w", cards[i].ID, err)
		}
	}
	return nil
}

// ReadCards reads an export and checks every line before returning, so that an
// import of a bad file writes nothing. Errors name the file, the line and the
// field: text that is not UTF-8, malformed JSON, an unknown field, a field
// ValidateCard refuses, a duplicate id.
func ReadCards(r io.Reader, name string) ([]clinic.Card, error) {
	var out []clinic.Card
	seen := map[string]int{}
	err := jsonl.ReadLimit(r, name, MaxCardLine, func(line int, raw []byte) error {
		if off, bad, ok := jsonl.CheckUTF8(raw); !ok {
			return fmt.Errorf("byte %d of the line (0x%02X) is not UTF-8: an export is UTF-8 text", off+1, bad)
		}
		var c clinic.Card
		if err := jsonl.Strict(raw, &c); err != nil {
			return fmt.Errorf("not a card: %v", err)
		}
		if err := ValidateCard(&c); err != nil {
			return err
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

// ReadCardsFile reads the memory export at path (ReadCards); a file that
// cannot be opened is an error of `memory import`, naming it.
func ReadCardsFile(path string) ([]clinic.Card, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("memory import: %w", err)
	}
	defer f.Close()
	return ReadCards(f, path)
}

// ImportResult is what an import did: the cards it wrote, those the bank
// held already as they are, and those it replaced (as they were before).
type ImportResult struct {
	Added, Unchanged int
	Replaced         []clinic.Card
}

// Write says what an import of the cards of file from did: each card it
// replaced, then the counts.
func (r ImportResult) Write(w io.Writer, from string) {
	for _, c := range r.Replaced {
		fmt.Fprintf(w, "replaced card %s (a %s card of run %s, episode %d)\n", c.ID, c.Kind, c.Run, c.CreatedEpisode)
	}
	fmt.Fprintf(w, "imported %d cards from %s: %d new, %d already in the bank unchanged, %d replaced\n",
		r.Added+r.Unchanged+len(r.Replaced), from, r.Added, r.Unchanged, len(r.Replaced))
}

// ErrCardsExist is returned (wrapped) by Import when cards of the import
// have the IDs of different cards in the bank and replacing was not asked.
var ErrCardsExist = errors.New("the bank holds other cards of these IDs")

// Import writes exported cards into a store and replays their evictions,
// earliest episode first, so that the bank as of any episode is what it was in
// the export, utilities included (their histories are credited again, first
// write per card and episode winning). Upsert starts retrieval counts at
// zero: they belong to the run that retrieved the cards. Importing the same
// cards twice changes nothing.
// A card whose ID the bank holds with other contents is not changed unless
// replace is set: without it Import writes nothing and returns an error
// wrapping ErrCardsExist that names the cards.
func Import(ctx context.Context, st Store, cards []clinic.Card, replace bool) (ImportResult, error) {
	var res ImportResult
	var write []clinic.Card
	for _, c := range cards {
		old, err := st.Get(ctx, c.ID)
		switch {
		case errors.Is(err, ErrNotFound):
			res.Added++
			write = append(write, c)
		case err != nil:
			return ImportResult{}, fmt.Errorf("memory: import: card %s: %w", c.ID, err)
		case sameCard(old, c):
			res.Unchanged++
		default:
			res.Replaced = append(res.Replaced, old)
			write = append(write, c)
		}
	}
	if len(res.Replaced) > 0 && !replace {
		o := res.Replaced[0]
		return ImportResult{}, fmt.Errorf("memory: import: %d cards have the IDs of other cards in the bank (the first: %s, a %s card of run %s, episode %d): %w; "+
			"an import changes no card unless --replace asks it to", len(res.Replaced), o.ID, o.Kind, o.Run, o.CreatedEpisode, ErrCardsExist)
	}
	if err := st.Upsert(ctx, write); err != nil {
		return ImportResult{}, fmt.Errorf("memory: import: %w", err)
	}
	if err := evictions(ctx, st, write); err != nil {
		return res, err
	}
	var credits []Credit // every card's, the unchanged ones' too: their histories merge
	for _, c := range cards {
		for _, u := range c.Utility {
			credits = append(credits, Credit{Card: c.ID, Utility: u})
		}
	}
	if err := st.Credit(ctx, credits); err != nil {
		return res, fmt.Errorf("memory: import: utilities: %w", err)
	}
	return res, nil
}

// sameCard reports whether an imported card is the one a bank holds,
// leaving out the retrieval counts, which belong to the bank's runs, and the
// utility history, which the import merges (first write per episode wins).
func sameCard(held, in clinic.Card) bool {
	for _, c := range []*clinic.Card{&held, &in} {
		c.Retrievals, c.LastRetrieved, c.Similarity, c.Utility = 0, 0, 0, nil
	}
	a, errA := json.Marshal(held)
	b, errB := json.Marshal(in)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// evictions replays the evictions of imported cards, earliest episode first.
func evictions(ctx context.Context, st Store, cards []clinic.Card) error {
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

// CheckDiff refuses episodes a diff cannot compare: it needs 0 <= from < to.
func CheckDiff(from, to int) error {
	if from < 0 || to <= from {
		return fmt.Errorf("need 0 <= from < to, got from %d and to %d", from, to)
	}
	return nil
}

// DiffAsked is a diff as `memory diff` is given it: the bank of Runs (none:
// every run) as of episode From and as of episode To, which without ToGiven
// is now (Latest).
type DiffAsked struct {
	From, To int
	ToGiven  bool
	Runs     []string
}

// Check refuses what no diff can compare (CheckDiff; From alone must be 0
// or more) and run IDs that cannot name a run. The errors name the flags.
func (q DiffAsked) Check() error {
	check := CheckDiff(q.From, q.From+1)
	if q.ToGiven {
		check = CheckDiff(q.From, q.To)
	}
	if check != nil {
		return fmt.Errorf("memory diff: --from %d --to %d: %w", q.From, q.To, check)
	}
	for _, r := range q.Runs {
		if err := contract.ValidateConditionRunID(r); err != nil {
			return fmt.Errorf("memory diff: --run: %w", err)
		}
	}
	return nil
}

// Diff compares the bank of st as asked (DiffOf). Without ToGiven it
// compares with now: the latest episode any card names, and at least one
// after From.
func (q DiffAsked) Diff(ctx context.Context, st Store) (Diff, error) {
	to := q.To
	if !q.ToGiven {
		last, err := Latest(ctx, st, q.Runs)
		if err != nil {
			return Diff{}, err
		}
		to = max(last, q.From+1)
	}
	return DiffOf(ctx, st, Filter{Runs: q.Runs}, q.From, to)
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
	if err := CheckDiff(from, to); err != nil {
		return Diff{}, fmt.Errorf("memory: diff: %w", err)
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
