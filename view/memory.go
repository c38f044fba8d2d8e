package view

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
	"github.com/clinevo/clinevo/settings"
)

type memoryPage struct {
	Title string
	// The form: the bank as of episode AsOf of the runs Runs (empty:
	// every run), a search and a diff.
	// Now: no as_of was given, so the bank is the live one; as_of=0 is the
	// empty bank, before episode 1, as `clinevo memory query --as-of 0` has it.
	Now                      bool
	AsOf, Max, Top, From, To int
	Runs, Q, Kinds, Bank     string
	Live                     []clinic.Card // the cards live as of AsOf
	// Note says what the page could not read (the retrieval counts as of
	// an episode, when a record does not decode): the rest stands.
	Note     string
	Searched bool
	Hits     []memory.Hit
	Diff     *memory.Diff
}

// intParam reads a non-negative integer parameter; absent is def.
func intParam(q url.Values, name string, def int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, badRequest("parameter %s: %q is not a non-negative whole number", name, v)
	}
	return n, nil
}

func list(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// filter is the filter the page's parameters make, refusing a kind or a
// bank that `clinevo memory query` refuses.
func (p *memoryPage) filter() (memory.Filter, error) {
	f := memory.Filter{Runs: list(p.Runs), Bank: p.Bank, AsOf: p.AsOf}
	for _, k := range list(p.Kinds) {
		if err := memory.CheckKind(k); err != nil {
			return f, badRequest("parameter kind: %v", err) // as `clinevo memory query --kind` refuses it
		}
		f.Kinds = append(f.Kinds, clinic.CardKind(k))
	}
	if p.Bank != "" {
		if err := memory.CheckBank(p.Bank); err != nil {
			return f, badRequest("parameter bank: %v", err)
		}
	}
	return f, nil
}

// memory shows the bank as of an episode, searches it the way the doctor
// and `clinevo memory query TEXT --as-of N` do, and diffs two episodes.
func (s *Server) memory(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	p := memoryPage{Title: "memory", Runs: q.Get("runs"), Q: q.Get("q"), Kinds: q.Get("kind"), Bank: q.Get("bank")}
	if err := p.numbers(q); err != nil {
		return nil, err
	}
	empty := !p.Now && p.AsOf == 0 // memory.Filter's AsOf 0 is now
	f, err := p.filter()
	if err != nil {
		return nil, err
	}
	if err := s.live(ctx, &p, f, empty); err != nil {
		return nil, err
	}
	if strings.TrimSpace(p.Q) != "" {
		p.Searched = true
		if !empty { // the empty bank finds nothing
			var err error
			if p.Hits, err = s.o.Memory.Search(ctx, memory.Query{Text: p.Q, K: p.Top, Filter: f}); err != nil {
				return nil, err
			}
		}
	}
	if q.Has("to") {
		d, err := memory.DiffOf(ctx, s.o.Memory, memory.Filter{Runs: f.Runs}, p.From, p.To)
		if err != nil {
			return nil, badRequest("%v", err)
		}
		p.Diff = &d
	}
	return p, nil
}

// numbers reads the page's whole-number parameters: as_of (absent: now),
// top (default: the doctor's K, as for the command), from and to.
func (p *memoryPage) numbers(q url.Values) error {
	var err error
	if p.AsOf, err = intParam(q, "as_of", 0); err != nil {
		return err
	}
	p.Now = q.Get("as_of") == ""
	if p.Top, err = intParam(q, "top", settings.Default().Memory.K); err != nil {
		return err
	}
	if p.From, err = intParam(q, "from", 0); err != nil {
		return err
	}
	p.To, err = intParam(q, "to", 0)
	return err
}

// live sets the last episode any card of the runs names and the cards f
// selects (none in the empty bank), with their retrievals as of the
// episode asked for: the bank counts them to now, so as of an episode they
// are counted again from the records up to it.
func (s *Server) live(ctx context.Context, p *memoryPage, f memory.Filter, empty bool) error {
	all := f
	all.AsOf, all.IncludeEvicted = 0, true
	cards, err := s.o.Memory.List(ctx, all)
	if err != nil {
		return err
	}
	for i := range cards {
		p.Max = max(p.Max, cards[i].CreatedEpisode, cards[i].EvictedEpisode)
		if !empty && memory.Match(&cards[i], f) {
			p.Live = append(p.Live, cards[i])
		}
	}
	if p.AsOf == 0 {
		return nil
	}
	n, err := s.retrievalsAsOf(ctx, p.AsOf)
	if err != nil {
		// The records are another table than the bank: one that does not
		// read costs the counts, not the page.
		p.Note = fmt.Sprintf("retrieval counts as of episode %d could not be read from the records: %v", p.AsOf, err)
	}
	for i := range p.Live {
		p.Live[i].Retrievals = n[p.Live[i].ID]
	}
	return nil
}

// retrievalsAsOf counts, by card, the stream episodes up to episode asOf
// that were shown it: what the bank's counter (memory.Store.MarkRetrieved,
// one per card and episode, not counted by frozen evaluations) read then.
func (s *Server) retrievalsAsOf(ctx context.Context, asOf int) (map[string]int, error) {
	recs, err := s.o.Results.Records(ctx, "")
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, r := range recs {
		if r.Kind != string(contract.KindStream) || r.Number > asOf {
			continue
		}
		for _, id := range r.Retrieved {
			out[id]++
		}
	}
	return out, nil
}

type cardPage struct {
	Title string
	Card  clinic.Card
	From  *results.Record // the episode that wrote it
}

// card shows a card with where it came from: run, episode, source case and
// the graded action.
func (s *Server) card(ctx context.Context, r *http.Request) (any, error) {
	id := r.URL.Query().Get("id")
	if id == "" {
		return nil, badRequest("card: the address needs ?id=CARD_ID")
	}
	c, err := s.o.Memory.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	recs, err := s.o.Results.Records(ctx, c.Run)
	if err != nil {
		return nil, err
	}
	return cardPage{Title: "card " + id, Card: c, From: results.SourceOf(recs, c)}, nil
}
