package recorded

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/memory"
	"github.com/clinevo/clinevo/results"
)

// Card is what `memory show` prints: a card and the episode that wrote it.
type Card struct {
	Card    clinic.Card  `json:"card"`
	Episode *CardEpisode `json:"episode,omitempty"` // nil: the card's run has no record of it (an imported card)
}

// CardEpisode is the episode that wrote a card (its JSON keys in the order
// the command has printed them).
type CardEpisode struct {
	Case       string   `json:"case"`
	Labels     []string `json:"labels"`
	S          float64  `json:"s"`
	Stage      int      `json:"stage"`
	WorkflowID string   `json:"workflow_id"`
}

// CardOf reads card id from the bank and the record of the episode that
// wrote it from the results store.
func CardOf(ctx context.Context, mem memory.Store, store results.Episodes, id string) (Card, error) {
	c, err := mem.Get(ctx, id)
	if err != nil {
		return Card{}, err
	}
	recs, err := store.Records(ctx, c.Run)
	if err != nil {
		return Card{}, err
	}
	out := Card{Card: c}
	if from := results.SourceOf(recs, c); from != nil {
		out.Episode = &CardEpisode{Case: from.CaseID, Labels: from.Labels, S: from.Scores.S, Stage: from.Stage, WorkflowID: from.WorkflowID}
	}
	return out, nil
}

// Write prints the card as a two-column table.
func (v Card) Write(w io.Writer) error {
	c := v.Card
	tw := tabwriter.NewWriter(w, 0, 2, 2, ' ', 0)
	evicted := "live"
	if c.EvictedEpisode > 0 {
		evicted = fmt.Sprintf("evicted at episode %d", c.EvictedEpisode)
	}
	fmt.Fprintf(tw, "card\t%s\n", c.ID)
	fmt.Fprintf(tw, "kind\t%s (bank %s)\n", c.Kind, c.Bank)
	fmt.Fprintf(tw, "text\t%s\n", c.Text)
	fmt.Fprintf(tw, "written\trun %s, pass %d, stage %d, episode %d; %s\n", c.Run, c.Pass, c.Stage, c.CreatedEpisode, evicted)
	fmt.Fprintf(tw, "source case\t%s\n", c.SourceCase)
	if c.Grade != "" {
		fmt.Fprintf(tw, "graded action\t%s\n", c.Grade)
	}
	fmt.Fprintf(tw, "retrievals\t%d (last at episode %d)\n", c.Retrievals, c.LastRetrieved)
	if e := v.Episode; e != nil {
		fmt.Fprintf(tw, "episode\t%s (stage %d, S=%.3f)\n", e.WorkflowID, e.Stage, e.S)
		fmt.Fprintf(tw, "labels\t%s\n", strings.Join(e.Labels, " "))
	}
	return tw.Flush()
}
