package engine_test

import "github.com/clinevo/clinevo/clinic"

func ids(cards []clinic.Card) []string {
	out := make([]string, len(cards))
	for i, c := range cards {
		out[i] = c.ID
	}
	return out
}
