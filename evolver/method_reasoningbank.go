package evolver

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/grader"
	"github.com/clinevo/clinevo/settings"
)

// ReasoningBank is the memory of Ouyang et al. 2025 (arXiv 2509.25140,
// "ReasoningBank: Scaling Agent Self-Evolving with Reasoning Memory"). After
// every episode the agent judges its own trajectory a success or a failure
// with no ground truth (§3.1, §3.2: LLM-as-a-judge; A.1 Figure 9), then
// distils memory items from it: validated strategies from a success,
// pitfalls and preventive lessons from a failure (§3.2; at most 3 items a
// trajectory, A.2). An item has a title, a one-sentence description and its
// content (§3.2, memory schema). Consolidation is simple addition (A.2):
// nothing is merged or pruned beyond the run's B_M. Retrieval is the
// run's similarity retrieval; the paper retrieves the top k = 1 (A.2, its
// default; C.1 measures 1 best of 1 to 4), which is memory.k 1.
//
// Under MaTTS (settings.MaTTS, §3.3 parallel scaling) the case's K attempts
// arrive together (Input.Attempts) and one step contrasts them (A.3 Figure
// 10: what consistently led to success, what the failures did wrong; at
// most 5 items from all attempts combined).
//
// The judge never reads the score or the key: it reads the episode as the
// doctor played it. With the evolver role's model it asks the model (the
// reasoningbank_judge, _extract and _contrast templates); with none it
// runs the mechanical forms below (selfJudge, distil, contrast), each
// clinevo's choice, since the paper's judge and extractor are models.
type ReasoningBank struct{ Model Model }

// Item is a ReasoningBank memory item (arXiv 2509.25140 §3.2).
type Item struct {
	Title       string `json:"title"`
	Description string `json:"description"`
	Content     string `json:"content"`
}

// Verdict is the self-judgement of one attempt: success or failure, and why.
type Verdict struct {
	Success bool   `json:"success"`
	Why     string `json:"why"`
}

// Limits the paper gives.
const (
	// rbItems is the most items distilled from one trajectory (A.2).
	rbItems = 3
	// rbContrastItems is the most items a MaTTS contrast writes from all
	// the attempts combined (A.3, Figure 10).
	rbContrastItems = 5
	// rbSlot numbers the method's cards (CardID's turn): clinevo's choice,
	// clear of the other methods' slots.
	rbSlot = 5000
	// rbSupportAt is the least lexical similarity at which a cited finding
	// counts as something the doctor was told (clinevo's choice, the same
	// half-overlap as scoring.support_at's default).
	rbSupportAt = 0.5
)

// Evolve judges the episode (and its MaTTS attempts) and writes the items
// it distils as strategy cards; the rule book stays as it was.
func (r ReasoningBank) Evolve(ctx context.Context, cfg settings.Evolver, in Input, truth *grader.Key, rules []clinic.Rule) (Output, error) {
	out := Output{Rules: append([]clinic.Rule(nil), rules...)}
	if !in.WriteCards {
		return out, nil
	}
	attempts := append([]Input{in}, in.Attempts...)
	verdicts := make([]Verdict, len(attempts))
	for i, a := range attempts {
		v, err := r.judge(ctx, a)
		if err != nil {
			return Output{}, err
		}
		verdicts[i] = v
		out.Edits = append(out.Edits, fmt.Sprintf("reasoningbank attempt %d judged %s: %s", i+1, outcomeWord(v), v.Why))
	}
	cards, err := r.items(ctx, in, attempts, verdicts)
	if err != nil {
		return Output{}, err
	}
	out.Cards, out.Skipped = screened(cfg, in, truth, cards)
	return out, nil
}

// items asks the model for the items when there is one, else distils or
// contrasts mechanically.
func (r ReasoningBank) items(ctx context.Context, in Input, attempts []Input, verdicts []Verdict) ([]clinic.Card, error) {
	var reply struct {
		Items []Item `json:"items"`
	}
	task, limit, req := "reasoningbank_extract", rbItems, any(extractRequest(in, verdicts[0]))
	if len(attempts) > 1 {
		task, limit, req = "reasoningbank_contrast", rbContrastItems, contrastRequest(attempts, verdicts)
	}
	ok, err := ask(ctx, r.Model, task, req, &reply)
	if err != nil {
		return nil, fmt.Errorf("reasoningbank: %w", err)
	}
	if ok && len(reply.Items) > 0 {
		return modelCards(in, verdicts[0], reply.Items[:min(len(reply.Items), limit)]), nil
	}
	if len(attempts) > 1 {
		return contrast(attempts, verdicts), nil
	}
	return []clinic.Card{distil(in, verdicts[0])}, nil
}

// judge is the self-judgement: the model's when there is one and its reply
// is usable, else selfJudge.
func (r ReasoningBank) judge(ctx context.Context, in Input) (Verdict, error) {
	var reply struct {
		Thoughts string `json:"thoughts"`
		Status   string `json:"status"`
	}
	req := struct {
		Query      string   `json:"query"`
		Trajectory []string `json:"trajectory"`
		Answer     string   `json:"answer"`
	}{in.Opening, rawLines(in), answerLine(in)}
	ok, err := ask(ctx, r.Model, "reasoningbank_judge", req, &reply)
	if err != nil {
		return Verdict{}, fmt.Errorf("reasoningbank: %w", err)
	}
	switch status := strings.ToLower(strings.TrimSpace(reply.Status)); {
	case ok && status == "success":
		return Verdict{Success: true, Why: reply.Thoughts}, nil
	case ok && status == "failure":
		return Verdict{Why: reply.Thoughts}, nil
	}
	return selfJudge(in), nil
}

// selfJudge is the mechanical self-judgement (clinevo's choice): it reads
// only what the doctor did and was told, never the score or the key. An
// attempt is a success when the doctor ended it itself (not the turn
// limit) naming a diagnosis, its leading working diagnosis had held since
// its previous decision (the last result did not overturn it), and at
// least one finding it cited is something the patient said or a test
// returned. Anything else is a failure, with the first reason that failed.
func selfJudge(in Input) Verdict {
	dx := predicted(in)
	switch {
	case dx == "" || strings.HasPrefix(dx, "undifferentiated"):
		return Verdict{Why: "no diagnosis was named"}
	case !committed(in):
		return Verdict{Why: "the turn limit ended the episode before the doctor committed"}
	case !settled(in, dx):
		return Verdict{Why: "the leading diagnosis changed at the last step"}
	case !supported(in):
		return Verdict{Why: "no cited finding was something the doctor was told"}
	}
	return Verdict{Success: true, Why: "a named diagnosis that held to the end, with findings the doctor was told"}
}

// committed reports whether the doctor ended the episode by its own final
// answer.
func committed(in Input) bool {
	for _, ev := range in.Events {
		if ev.Final != nil {
			return true
		}
	}
	return false
}

// settled reports whether the leading working diagnosis of the doctor's
// decision before the last named dx (true with fewer than two decisions
// that carried working diagnoses).
func settled(in Input, dx string) bool {
	var leads []string
	for _, ev := range in.Events {
		if len(ev.WorkingDiagnoses) > 0 {
			leads = append(leads, ev.WorkingDiagnoses[0])
		}
	}
	return len(leads) < 2 || sameDiagnosis(leads[len(leads)-2], dx)
}

// supported reports whether a finding the doctor cited is, lexically,
// something it was told: a patient's answer or a returned result.
func supported(in Input) bool {
	var told []string
	for _, ev := range in.Events {
		if ev.Status == clinic.StatusReturned && ev.Reply != "" {
			told = append(told, ev.Reply)
		}
	}
	for _, e := range in.Final.Evidence {
		for _, t := range told {
			if strings.Contains(strings.ToLower(t), strings.ToLower(e)) || similar(e, t) >= rbSupportAt {
				return true
			}
		}
	}
	return false
}

// sameDiagnosis reports whether two diagnoses name the same condition.
func sameDiagnosis(a, b string) bool { return grader.NameGrade(a, b) >= 1 }

func outcomeWord(v Verdict) string {
	if v.Success {
		return "success"
	}
	return "failure"
}

// answerLine is the doctor's answer as the judge reads it.
func answerLine(in Input) string {
	return "diagnosis " + orNone(predicted(in)) + "; evidence: " + strings.Join(in.Final.Evidence, "; ")
}

// named is the diagnosis an item may carry for the built-in doctors: the
// attempt's, "" when it named none.
func named(in Input) string {
	dx := predicted(in)
	if strings.HasPrefix(dx, "undifferentiated") {
		return ""
	}
	return dx
}

// distil is the mechanical extraction from one judged attempt (clinevo's
// choice: one item, where the paper's extractor may write up to three). A
// success is a validated strategy that suggests its diagnosis for a like
// presentation, with what was asked and which tests came back; a failure
// is a lesson that warns against the diagnosis it gave (Avoid), and why.
// The built-in doctors read Diagnosis, Avoid, Ask and Tests; a model doctor
// reads the text.
func distil(in Input, v Verdict) clinic.Card {
	dx := named(in)
	ask, tests := returned(in)
	var it Item
	if v.Success {
		it = Item{Title: "A resolved presentation of this kind",
			Description: "A like presentation was judged resolved as " + orNone(dx) + ".",
			Content:     "History asked: " + listOrNone(ask) + "; tests that came back: " + listOrNone(tests) + "; " + v.Why + "."}
	} else {
		it = Item{Title: "A pitfall with a presentation of this kind",
			Description: "A like presentation ended in " + orNone(dx) + ", judged not resolved: " + v.Why + ".",
			Content:     "Do not settle on " + orNone(dx) + " before the findings support it; take the rest of the history and look for a finding that confirms a diagnosis before naming it."}
	}
	c := methodCard(in, clinic.CardStrategy, rbSlot, it.text())
	if v.Success {
		c.Diagnosis, c.Ask, c.Tests = dx, ask, tests
	} else {
		c.Avoid = dx
	}
	return c
}

// text is an item as a card's text.
func (it Item) text() string {
	return "Title: " + it.Title + "\nDescription: " + it.Description + "\nContent: " + it.Content
}

func listOrNone(xs []string) string { return orNone(strings.Join(xs, ", ")) }

// group is the attempts of a MaTTS case that named one diagnosis.
type group struct {
	dx        string
	attempts  []int // indices into the attempts
	successes int
}

// contrast is the mechanical self-contrast of a case's K attempts
// (clinevo's choice of the paper's A.3 instruction: keep the patterns that
// consistently led to success, turn the failures' mistakes into
// preventive lessons). The attempts are grouped by the diagnosis they
// named, in attempt order; a diagnosis judged a success by more of its
// attempts than not is a validated strategy carrying only the history
// topics and tests every such success shared, any other a lesson to avoid
// it. At most rbContrastItems items. Identical attempts (the deterministic
// built-in doctors) make one group: the contrast then says so and writes
// what distil would.
func contrast(attempts []Input, verdicts []Verdict) []clinic.Card {
	var groups []group
	for i, a := range attempts {
		dx := named(a)
		j := slices.IndexFunc(groups, func(g group) bool { return dx != "" && sameDiagnosis(g.dx, dx) || dx == "" && g.dx == "" })
		if j < 0 {
			groups, j = append(groups, group{dx: dx}), len(groups)
		}
		groups[j].attempts = append(groups[j].attempts, i)
		if verdicts[i].Success {
			groups[j].successes++
		}
	}
	var out []clinic.Card
	for n, g := range groups[:min(len(groups), rbContrastItems)] {
		out = append(out, contrastCard(attempts, verdicts, g, n))
	}
	return out
}

// contrastCard is the item of one group of attempts.
func contrastCard(attempts []Input, verdicts []Verdict, g group, n int) clinic.Card {
	first := attempts[g.attempts[0]]
	K, k := len(attempts), len(g.attempts)
	validated := 2*g.successes > k
	ask, tests := shared(attempts, g, verdicts)
	tally := fmt.Sprintf("%d of %d attempts named %s; %d judged resolved", k, K, orNone(g.dx), g.successes)
	if k == K && identical(attempts) {
		tally = fmt.Sprintf("all %d attempts played alike and named %s; judged %s", K, orNone(g.dx), outcomeWord(verdicts[0]))
	}
	it := Item{Title: "A contrast of attempts at a presentation of this kind", Description: tally + "."}
	if validated {
		it.Content = "What the resolved attempts shared: history " + listOrNone(ask) + "; tests " + listOrNone(tests) + "."
	} else {
		it.Content = "Do not settle on " + orNone(g.dx) + ": " + verdicts[g.attempts[0]].Why + "."
	}
	c := methodCard(first, clinic.CardStrategy, rbSlot+n, it.text())
	if validated {
		c.Diagnosis, c.Ask, c.Tests = g.dx, ask, tests
	} else {
		c.Avoid = g.dx
	}
	return c
}

// shared are the history topics and tests every attempt of the group that
// was judged a success returned.
func shared(attempts []Input, g group, verdicts []Verdict) (ask, tests []string) {
	started := false
	for _, i := range g.attempts {
		if !verdicts[i].Success {
			continue
		}
		a, t := returned(attempts[i])
		if !started {
			ask, tests, started = a, t, true
			continue
		}
		ask = slices.DeleteFunc(ask, func(x string) bool { return !slices.Contains(a, x) })
		tests = slices.DeleteFunc(tests, func(x string) bool { return !slices.Contains(t, x) })
	}
	return ask, tests
}

// identical reports whether every attempt played the same actions to the
// same answer.
func identical(attempts []Input) bool {
	for _, a := range attempts[1:] {
		if !slices.Equal(transcriptLines(a), transcriptLines(attempts[0])) {
			return false
		}
	}
	return true
}

// extractRequest is what the model's extractor reads of one judged
// attempt (A.1 Figure 8: the query and the trajectory, with the verdict).
func extractRequest(in Input, v Verdict) any {
	return struct {
		Query      string   `json:"query"`
		Trajectory []string `json:"trajectory"`
		Answer     string   `json:"answer"`
		Judged     string   `json:"judged"`
		Why        string   `json:"why"`
	}{in.Opening, rawLines(in), answerLine(in), outcomeWord(v), v.Why}
}

// attemptView is one attempt as the model's contrast reads it.
type attemptView struct {
	Trajectory []string `json:"trajectory"`
	Answer     string   `json:"answer"`
	Judged     string   `json:"judged"`
}

// contrastRequest is what the model's contrast reads (A.3 Figure 10: the
// query and the K trajectories, here with their self-judgements).
func contrastRequest(attempts []Input, verdicts []Verdict) any {
	views := make([]attemptView, len(attempts))
	for i, a := range attempts {
		views[i] = attemptView{Trajectory: rawLines(a), Answer: answerLine(a), Judged: outcomeWord(verdicts[i])}
	}
	return struct {
		Query        string        `json:"query"`
		Trajectories []attemptView `json:"trajectories"`
	}{attempts[0].Opening, views}
}

// modelCards are a model's items as cards; the first also carries the
// first attempt's verdict in the fields the built-in doctors read.
func modelCards(in Input, v Verdict, items []Item) []clinic.Card {
	out := make([]clinic.Card, len(items))
	for i, it := range items {
		out[i] = methodCard(in, clinic.CardStrategy, rbSlot+i, it.text())
	}
	if v.Success {
		out[0].Diagnosis = named(in)
	} else {
		out[0].Avoid = named(in)
	}
	return out
}
