package calibrations

import (
	"github.com/vramplan/vramplan/planner"
	"github.com/vramplan/vramplan/planner/names"
)

// Resolve returns the calibration of list that name names, and what a
// person should be told about it (empty when nothing). It is the one GPU
// resolver: the CLI's --gpu, the calculator page, /embed, the API and the
// <vram-calculator> element (through the API) all call it. list is in
// preference order, measured first, as All and the server's picker give
// it; aliases are the ids that were replaced and what replaced them.
//
// name is an id in any case, an alias, or the card as people name it
// ("4090", "RTX 4090", "h100", "NVIDIA L40S"), compared after folding
// full-width forms (names.Compat: "ＲＴＸ ４０９０" is "RTX 4090"); a card
// calibrated on several platforms resolves to its Linux entry, and a
// name that fits several cards is an error listing them (names.GPU).
func Resolve(name string, list []planner.Calibration, aliases []names.Alias) (planner.Calibration, string, error) {
	cards := make([]names.Card, len(list))
	for i := range list {
		c := &list[i]
		cards[i] = names.Card{ID: c.ID, Device: c.GPU, Platform: c.Platform, Label: Describe(c)}
	}
	r, err := names.GPU(names.Compat(name), cards, aliases)
	if err != nil {
		return planner.Calibration{}, "", err
	}
	i := 0
	for list[i].ID != r.ID { // names.GPU answers one of the cards
		i++
	}
	return list[i], r.Note, nil
}

// Describe says which card, platform and kind of figures c is, as a list
// of choices shows it: "NVIDIA H100 PCIe under Linux, estimated". A
// calibration that names no card (an input's own) is named by its id, and
// one that names no platform leaves it out.
func Describe(c *planner.Calibration) string {
	d := c.GPU
	if d == "" {
		d = c.ID
	}
	if p := c.PlatformName(); p != "" {
		d += " under " + p
	}
	return d + ", " + c.Kind()
}
