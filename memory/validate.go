package memory

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/clinevo/clinevo/clinic"
	"github.com/clinevo/clinevo/contract"
	"github.com/clinevo/clinevo/settings"
)

// Limits of a card in an export (docs/commands.md), clinevo's own choices:
// a card a run writes holds texts of a case (each at most 64 KiB, the case
// at most 512 KiB: corpus.MaxTextBytes, corpus.MaxCaseBytes) or a model's
// reply (at most roles.<role>.max_tokens), far below them. Export and
// import check the same limits, so every card an export writes imports.
const (
	MaxCardText  = 1 << 20  // any one text of a card
	MaxCardItems = 10_000   // any one list of a card
	MaxCardLine  = 16 << 20 // a card as JSON, one line of an export
	maxCardID    = 128      // a card ID (a UUID, as runs write them)
)

// Kinds are the card kinds a bank holds (settings.CardKinds).
func Kinds() []string { return slices.Clone(settings.CardKinds) }

// Banks are the banks the kinds are stored in (BankOf), in kind order.
func Banks() []string {
	var out []string
	for _, k := range settings.CardKinds {
		if b := BankOf(clinic.CardKind(k)); !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// CheckKind refuses a kind no bank holds, naming what the kinds are.
func CheckKind(k string) error {
	if !slices.Contains(settings.CardKinds, k) {
		return fmt.Errorf("kind %q: want one of %s", k, strings.Join(settings.CardKinds, ", "))
	}
	return nil
}

// CheckBank refuses a bank name that is not one of Banks.
func CheckBank(b string) error {
	if !slices.Contains(Banks(), b) {
		return fmt.Errorf("bank %q: want one of %s", b, strings.Join(Banks(), ", "))
	}
	return nil
}

// ValidateCard checks a card as the command line checks the same values
// elsewhere: an ID, a known kind in its bank, a run ID, episode numbers of 0
// or more with an eviction at or after the creation, and texts and lists
// within the limits. It returns the first problem, naming the field.
func ValidateCard(c *clinic.Card) error {
	switch {
	case c.ID == "":
		return fmt.Errorf("field id: required")
	case len(c.ID) > maxCardID || strings.IndexFunc(c.ID, func(r rune) bool { return r <= ' ' || r > '~' }) >= 0:
		return fmt.Errorf("field id: %.40q: want 1 to %d printable ASCII characters without spaces (a UUID, as runs write them)", c.ID, maxCardID)
	case c.Kind == "":
		return fmt.Errorf("field kind: required")
	case CheckKind(string(c.Kind)) != nil:
		return fmt.Errorf("field %w", CheckKind(string(c.Kind)))
	case c.Run == "":
		return fmt.Errorf("field run: required")
	case c.Bank != BankOf(c.Kind):
		return fmt.Errorf("field bank: %q, want %q: a %s card is kept in bank %s", c.Bank, BankOf(c.Kind), c.Kind, BankOf(c.Kind))
	}
	if err := contract.ValidateConditionRunID(c.Run); err != nil {
		return fmt.Errorf("field run: %w", err)
	}
	for _, n := range []struct {
		field string
		v     int
	}{{"pass", c.Pass}, {"stage", c.Stage}, {"created_episode", c.CreatedEpisode}, {"evicted_episode", c.EvictedEpisode},
		{"retrievals", c.Retrievals}, {"last_retrieved", c.LastRetrieved}} {
		if err := contract.EpisodeNumberRange.Check("field "+n.field, n.v); err != nil {
			return err
		}
	}
	if c.EvictedEpisode > 0 && c.EvictedEpisode < c.CreatedEpisode {
		return fmt.Errorf("field evicted_episode: %d is before created_episode %d: a card is evicted after it is written", c.EvictedEpisode, c.CreatedEpisode)
	}
	return cardSizes(reflect.ValueOf(c).Elem(), "")
}

// cardSizes refuses a text longer than MaxCardText or a list longer than
// MaxCardItems, naming the field.
func cardSizes(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > MaxCardText {
			return fmt.Errorf("field %s: %d bytes of text; a text of a card takes at most %d (1 MiB)", path, v.Len(), MaxCardText)
		}
	case reflect.Slice:
		if v.Len() > MaxCardItems {
			return fmt.Errorf("field %s: %d items; a list of a card takes at most %d", path, v.Len(), MaxCardItems)
		}
		for i := range v.Len() {
			if err := cardSizes(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous {
				name = ""
			}
			if err := cardSizes(v.Field(i), strings.TrimPrefix(path+"."+name, ".")); err != nil {
				return err
			}
		}
	}
	return nil
}
