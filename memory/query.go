package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/clinevo/clinevo/clinic"
)

// Asked is a similarity search as `memory query` is given it: the text, a
// filter, kinds by name, and a number of cards and an episode that count
// only when given (TopGiven, AsOfGiven).
type Asked struct {
	Text      string
	Filter    Filter // Kinds come from KindNames
	KindNames []string
	Top       int // cards; without TopGiven, the doctor's K
	TopGiven  bool
	AsOfGiven bool // Filter.AsOf was given: its 0 is the empty bank, not now
}

// Check refuses a search that cannot mean anything: no text, a negative
// episode, an unknown kind or bank, fewer than one card. The errors name the
// command's flags.
func (q Asked) Check() error {
	switch {
	case strings.TrimSpace(q.Text) == "":
		return errors.New(`memory query: TEXT is empty: give the words to search for, e.g. memory query "chest pain on exertion"`)
	case q.Filter.AsOf < 0:
		return fmt.Errorf("memory query: --as-of %d: want an episode number, 0 or more (0: the empty bank; without --as-of: now)", q.Filter.AsOf)
	case q.TopGiven && q.Top < 1:
		return fmt.Errorf("memory query: --top %d: want at least 1 card (without --top: memory.k)", q.Top)
	}
	// CheckBank's and CheckKind's errors ("bank %q: want ...") read as the flags.
	if q.Filter.Bank != "" {
		if err := CheckBank(q.Filter.Bank); err != nil {
			return fmt.Errorf("memory query: --%w", err)
		}
	}
	for _, k := range q.KindNames {
		if err := CheckKind(k); err != nil {
			return fmt.Errorf("memory query: --%w", err)
		}
	}
	return nil
}

// Search runs the search on st for k cards unless Top was given. As of
// episode 0 the bank is empty (Filter's 0 is now), so nothing is searched.
// No hit is an empty list, not nil, so that JSON prints [] rather than null.
func (q Asked) Search(ctx context.Context, st Store, k int) ([]Hit, error) {
	query := Query{Text: q.Text, K: k, Filter: q.Filter}
	if q.TopGiven {
		query.K = q.Top
	}
	for _, name := range q.KindNames {
		query.Filter.Kinds = append(query.Filter.Kinds, clinic.CardKind(name))
	}
	hits := []Hit{}
	if !q.AsOfGiven || q.Filter.AsOf > 0 {
		found, err := st.Search(ctx, query)
		if err != nil {
			return nil, err
		}
		hits = append(hits, found...)
	}
	return hits, nil
}
