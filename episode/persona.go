package episode

import (
	"hash/fnv"
	"regexp"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/textmatch"
)

// The built-in patient's persona behaviours beyond the personality's manner
// (language proficiency, anamnestic fidelity, cognitive disorientation, each
// on a few levels: clinic.Persona). Each choice is a deterministic function of the case, the
// fact and the question (seed), so an episode replays identically.

// seed is the per-answer random seed: a hash of the case's record (its
// opening and first fact) and the question asked.
func seed(q PatientQuery, parts ...string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(q.View.OpeningComplaint))
	if len(q.View.Facts) > 0 {
		h.Write([]byte(q.View.Facts[0].ID + q.View.Facts[0].Text))
	}
	h.Write([]byte(textmatch.Normalize(q.Question)))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return h.Sum32()
}

// wanders reports whether a highly disoriented patient answers this question
// off the point: one question in three, by seed. Such an answer reveals
// nothing; asking again in other words may get through.
func wanders(q PatientQuery) bool {
	return q.View.Persona.Disoriented() == "high" && seed(q)%3 == 0
}

// wanderings are what a disoriented patient says instead of answering.
var wanderings = []string{
	"Sorry, what was the question? I was thinking about whether I locked the back door.",
	"My daughter usually comes with me to these appointments, she remembers things better.",
	"The bus was late again this morning, I had to stand the whole way.",
	"I'm not sure what day it is today, to be honest. Is it Tuesday?",
}

func offTopic(q PatientQuery) string {
	return wanderings[seed(q, "wander")%uint32(len(wanderings))]
}

// blurs reports whether a patient of low anamnestic fidelity tells this fact
// vaguely: one fact in two, by a hash of its ID. (Low fidelity also holds facts
// back when asked imprecisely: see holdsBack.)
func blurs(p clinic.Persona, factID string) bool {
	if p.Fidelity() != "low" {
		return false
	}
	h := fnv.New32a()
	h.Write([]byte("blur/" + factID))
	return h.Sum32()%2 == 0
}

// amounts are the exact quantities a vague patient no longer remembers.
var amounts = regexp.MustCompile(`(?i)\b((about|around|nearly|over|almost) )?(\d+([.,/]\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|a couple of|a few|several)\b`)

// blur says a fact vaguely: exact amounts become "some", behind a hedge.
func blur(text string) string {
	out := amounts.ReplaceAllString(text, "some")
	if len(out) > 1 && !strings.HasPrefix(out, "I ") && !strings.HasPrefix(out, "I'") {
		out = strings.ToLower(out[:1]) + out[1:]
	}
	return "I think, though I'm not sure, " + out
}

// plainer says a fact at a language proficiency (one of three levels): basic keeps the first clause only, intermediate drops what follows
// a semicolon and any aside in brackets, advanced says it as it is.
func plainer(level, text string) string {
	switch level {
	case "basic":
		if i := strings.IndexAny(text, ",;"); i > 12 {
			text = strings.TrimSpace(text[:i]) + "."
		}
	case "intermediate":
		if i := strings.IndexByte(text, ';'); i > 12 {
			text = strings.TrimSpace(text[:i]) + "."
		}
		if i := strings.IndexByte(text, '('); i > 0 {
			if j := strings.IndexByte(text[i:], ')'); j > 0 {
				text = strings.Join(strings.Fields(text[:i]+text[i+j+1:]), " ")
			}
		}
	}
	return text
}
