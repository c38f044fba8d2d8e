package episode

import (
	"context"
	"hash/fnv"
	"slices"
	"sort"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// Patient answers the doctor's questions from the patient view alone.
type Patient interface {
	// Answer returns the reply to one question. Errors are transient faults of a
	// model-backed patient; the built-in patient never fails.
	Answer(ctx context.Context, q PatientQuery) (PatientReply, error)
}

// PatientQuery is one question with what the patient needs to answer it.
type PatientQuery struct {
	View     clinic.PatientView
	Question string
	Topic    string          // optional hint from a built-in doctor
	Revealed map[string]bool // facts already told
	Held     map[string]bool // facts held back once already
	// Invent lets the patient answer a question the record does not cover with
	// a plausible detail consistent with the case (Med-Inquire's patient,
	// EvoClinician §3); Generated holds the details already given, by topic.
	Invent    bool
	Generated map[string]string
}

// Unanswered reasons.
const (
	AnsweredNone     = "none"
	NotInPatientView = "not_in_patient_view"
	UnclearQuestion  = "unclear_question"
)

// PatientReply is the patient's answer.
type PatientReply struct {
	Text       string
	FactIDs    []string // facts revealed by this answer
	Held       []string // facts that matched but were held back
	Unanswered string   // none | not_in_patient_view | unclear_question
	LLMError   bool     // a model-backed patient's reply stayed malformed after repair
	Generated  bool     // the answer is a detail beyond the record (Invent)
}

// topicCues are the words that point a question at a history topic.
var topicCues = map[string][]string{
	clinic.TopicOnset:       {"when", "start", "began", "begin", "first", "notice", "onset", "sudden", "ago", "come on", "came on"},
	clinic.TopicDuration:    {"how long", "last", "duration", "persist", "constant", "come and go", "often", "frequen", "episode", "since"},
	clinic.TopicCourse:      {"how has it changed", "has it changed", "getting worse", "got worse", "getting better", "progress", "coming back", "come back", "came back", "you tried", "tried anything", "anything helped", "since it started", "since it began", "over time"},
	clinic.TopicCharacter:   {"describe", "feel like", "kind of", "type of", "what is it like", "character", "quality", "sharp", "dull", "burning", "nature"},
	clinic.TopicLocation:    {"where", "locat", "radiat", "spread", "which side", "move", "point to", "area"},
	clinic.TopicSeverity:    {"how bad", "severe", "severity", "scale", "intens", "worst", "cope", "interfer"},
	clinic.TopicTriggers:    {"worse", "better", "trigger", "bring on", "brings on", "bring it on", "brings it on", "set it off", "relie", "ease", "aggravat", "make it", "set off", "exert", "position"},
	clinic.TopicAssociated:  {"other symptom", "anything else", "associated", "along with", "fever", "nausea", "vomit", "cough", "breath", "discharge", "rash", "dizz", "tired", "weight", "urine", "bowel", "sweat", "appetite"},
	clinic.TopicSystems:     {"review of systems", "other problems", "any other", "systems", "elsewhere"},
	clinic.TopicPastHistory: {"past", "medical history", "previous", "before", "conditions", "illness", "operation", "surgery", "health problem", "ever had", "history"},
	clinic.TopicMedications: {"medicat", "medicine", "tablet", "pill", "drug", "taking", "take any", "prescri", "treatment", "inhaler"},
	clinic.TopicAllergies:   {"allerg", "reaction"},
	clinic.TopicFamily:      {"family", "relative", "parent", "mother", "father", "sibling", "brother", "sister", "runs in"},
	clinic.TopicExposures:   {"travel", " trip", "abroad", "animal", " pet", " bite", "bitten", " sting", " stung", "exposed", "exposure", "chemical", "injur", "caught", "picked up", "anyone ill", "sick contact", "contact with"},
	clinic.TopicSocial:      {"smok", "alcohol", "drink", "work", "job", "occupation", "live", "travel", "sexual", "partner", "diet", "exercise", "stress", "home", "contact"},
}

// QuestionTopics returns the history topics a question asks about, in the order of clinic.Topics.
func QuestionTopics(question string) []string {
	q := " " + strings.ToLower(question) + " "
	var out []string
	for _, t := range clinic.Topics {
		for _, c := range topicCues[t] {
			if strings.Contains(q, c) {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// cueWords are stripped before lexical matching so that "when did it start"
// does not match every fact containing "start".
var cueWords = func() map[string]bool {
	m := map[string]bool{}
	for _, cues := range topicCues {
		for _, c := range cues {
			for _, t := range textmatch.Tokens(c) {
				m[t] = true
			}
		}
	}
	return m
}()

// BuiltinPatient is the deterministic fact-retrieval patient.
type BuiltinPatient struct{}

var _ Patient = BuiltinPatient{}

// Thresholds of the built-in patient's fact matching.
const (
	revealAt  = 0.55 // a fact this relevant is told to a high-recall patient
	preciseAt = 0.8  // a question this precise draws the fact from anyone
	maxFacts  = 3    // facts told in one answer
)

// Answer scores every fact against the question (topic match 0.6, plus 0.4 times
// the share of the question's content words found in the fact) and tells the
// best ones, shaped by the persona.
func (BuiltinPatient) Answer(_ context.Context, q PatientQuery) (PatientReply, error) {
	topics := QuestionTopics(q.Question)
	if q.Topic != "" && !slices.Contains(topics, q.Topic) {
		topics = append(topics, q.Topic)
	}
	words := map[string]bool{}
	for t := range textmatch.Set(q.Question) {
		if !cueWords[t] {
			words[t] = true
		}
	}
	if len(topics) == 0 && len(words) == 0 {
		return PatientReply{Text: shape(q.View.Persona, "", "I'm not sure what you are asking me."), Unanswered: UnclearQuestion}, nil
	}
	if wanders(q) {
		return PatientReply{Text: shape(q.View.Persona, q.Question, offTopic(q)), Unanswered: UnclearQuestion}, nil
	}
	reply, told := tell(q, candidates(q, topics, words))
	if len(told) == 0 {
		return unanswered(q, topics, reply), nil
	}
	reply.Unanswered = AnsweredNone
	reply.Text = shape(q.View.Persona, q.Question, strings.Join(told, " "))
	return reply, nil
}

// scored is a fact that the question draws, with its relevance and place.
type scored struct {
	f clinic.Fact
	s float64
	i int
}

// candidates are the facts relevant enough to tell, new ones first, then
// the most relevant, then in record order. A fact that repeats the opening
// complaint is never one: the patient does not read its complaint back.
func candidates(q PatientQuery, topics []string, words map[string]bool) []scored {
	var cands []scored
	opening := openingSentences(q.View.OpeningComplaint)
	for i, f := range q.View.Facts {
		if opening[textmatch.Normalize(f.Text)] {
			continue
		}
		s := 0.0
		for _, t := range f.Topics {
			if slices.Contains(topics, t) {
				s = 0.6
				break
			}
		}
		s += 0.4 * textmatch.Coverage(words, textmatch.Set(f.Text))
		if len(words) > 0 && s < 0.6 && textmatch.Coverage(words, textmatch.Set(f.Text)) >= 0.5 {
			s += 0.3 // a direct lexical hit without a topic cue
		}
		if s >= revealAt {
			cands = append(cands, scored{f, s, i})
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		ra, rb := q.Revealed[cands[a].f.ID], q.Revealed[cands[b].f.ID]
		if ra != rb {
			return !ra // new facts first
		}
		if cands[a].s != cands[b].s {
			return cands[a].s > cands[b].s
		}
		return cands[a].i < cands[b].i
	})
	return cands
}

// tell says up to maxFacts candidates (one for an impatient patient), in
// the patient's words; a patient of poor recall holds some back the first
// time it is asked for them imprecisely.
func tell(q PatientQuery, cands []scored) (PatientReply, []string) {
	limit := maxFacts
	if q.View.Persona.Personality == "impatient" {
		limit = 1
	}
	var told []string
	var reply PatientReply
	for _, c := range cands {
		if len(reply.FactIDs) == limit {
			break
		}
		if holdsBack(q.View.Persona, c.f.ID) && c.s < preciseAt && !q.Held[c.f.ID] && !q.Revealed[c.f.ID] {
			reply.Held = append(reply.Held, c.f.ID)
			continue
		}
		reply.FactIDs = append(reply.FactIDs, c.f.ID)
		told = append(told, say(q.View.Persona, c.f.ID, c.f.Text))
	}
	return reply, told
}

// unanswered is the reply when no fact was told: a negative beyond the
// record where the rules allow one and the record holds nothing on the
// topics, a vague answer where facts were held back, else "I don't know".
func unanswered(q PatientQuery, topics []string, reply PatientReply) PatientReply {
	reply.Unanswered = NotInPatientView
	switch {
	case q.Invent && len(reply.Held) == 0 && len(topics) > 0 && allNegatable(topics) && !holdsTopic(q.View, topics):
		// Beyond the record: the case holds nothing on these topics, so the
		// consistent answer is a negative, cached by topic for the episode.
		reply.Unanswered, reply.Generated = AnsweredNone, true
		reply.Text = shape(q.View.Persona, q.Question, "No, nothing like that that I've noticed.")
	case len(reply.Held) > 0:
		reply.Unanswered = AnsweredNone
		reply.Text = shape(q.View.Persona, q.Question, "Hmm, I can't quite remember. Something like that, maybe, I'm not sure.")
	default:
		reply.Text = shape(q.View.Persona, q.Question, "I don't know anything about that, sorry.")
	}
	return reply
}

// openingSentences are the opening complaint's sentences, normalised: a
// record whose history repeats its abstract (an imported case report) holds
// them as facts too.
func openingSentences(opening string) map[string]bool {
	out := map[string]bool{textmatch.Normalize(opening): true}
	for _, s := range strings.SplitAfter(opening, ". ") {
		out[textmatch.Normalize(s)] = true
	}
	return out
}

// negatable are the topics a plain "no" answers: is there anything of this
// kind? Onset, duration, character, location and severity describe the
// complaint itself and have no negative answer.
var negatable = map[string]bool{clinic.TopicTriggers: true, clinic.TopicAssociated: true, clinic.TopicSystems: true,
	clinic.TopicPastHistory: true, clinic.TopicMedications: true, clinic.TopicAllergies: true, clinic.TopicFamily: true, clinic.TopicSocial: true,
	clinic.TopicExposures: true}

func allNegatable(topics []string) bool {
	for _, t := range topics {
		if !negatable[t] {
			return false
		}
	}
	return true
}

// holdsTopic reports whether the record holds a fact on any of the topics.
func holdsTopic(v clinic.PatientView, topics []string) bool {
	for _, f := range v.Facts {
		for _, t := range f.Topics {
			if slices.Contains(topics, t) {
				return true
			}
		}
	}
	return false
}

// holdsBack decides, deterministically per fact, whether a patient of this recall
// keeps the fact back the first time it is asked for imprecisely.
func holdsBack(p clinic.Persona, factID string) bool {
	h := fnv.New32a()
	h.Write([]byte(factID))
	switch p.Recall {
	case "low":
		return h.Sum32()%3 != 0
	case "medium":
		return h.Sum32()%3 == 0
	}
	return false
}

// say rewrites one fact for the persona's anamnestic fidelity and language,
// in the patient's own words where the record's text allows (a case report's
// "She denied fever." is "I denied fever.").
func say(p clinic.Persona, factID, text string) string {
	text = strings.TrimSpace(text)
	if own, ok := textmatch.FirstPerson(text); ok {
		text = own
	}
	if !strings.HasSuffix(text, ".") && !strings.HasSuffix(text, "?") && !strings.HasSuffix(text, "!") {
		text += "."
	}
	if blurs(p, factID) {
		text = blur(text)
	}
	return plainer(p.Proficiency(), text)
}

// shape wraps an answer in the persona's manner.
func shape(p clinic.Persona, question, answer string) string {
	var b strings.Builder
	if p.Disoriented() != "normal" {
		b.WriteString("Let me see... sorry, I get muddled. ")
	}
	switch p.Personality {
	case "anxious":
		b.WriteString("I've been so worried about this. ")
	case "verbose":
		b.WriteString("Well, where do I begin, doctor. ")
	case "impatient":
		b.WriteString("Look, ")
		answer = lowerFirst(answer)
	case "distrustful":
		b.WriteString("Why do you need to know that? Fine. ")
	case "minimising":
		b.WriteString("It's probably nothing, but ")
		answer = lowerFirst(answer)
	}
	b.WriteString(answer)
	switch p.Personality {
	case "anxious":
		b.WriteString(" Is it something serious?")
	case "verbose":
		b.WriteString(" My neighbour said I should get it looked at, so here I am.")
	}
	return b.String()
}

func lowerFirst(s string) string {
	if s == "" || strings.HasPrefix(s, "I ") || strings.HasPrefix(s, "I'") {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
