package decode

// A column chunk's dictionary page: checked when it arrives, decoded when a data page first
// needs it (or at once for a reader that emits dictionary indices), and kept in Arrow layout
// for the chunk's data pages.

import (
	"github.com/pqscan/pqscan/internal/decode/format"
)

// setDictionary takes a chunk's dictionary page: its header is checked now, its body decoded
// when a data page first needs it (ensureDictionary), or now when the reader emits
// dictionary indices (the batches carry the dictionary itself).
func (d *pageDecoder) setDictionary(h *format.PageHeader, body []byte) error {
	if d.dict != nil || d.pendingDict != nil {
		return d.errf(ErrPage, "a second dictionary page")
	}
	dh := h.DictionaryPageHeader
	if dh == nil {
		return d.errf(ErrPage, "dictionary page without a dictionary header")
	}
	if dh.Encoding != format.Plain && dh.Encoding != format.PlainDictionary {
		return d.errf(ErrUnsupported, "dictionary page encoding %v", dh.Encoding)
	}
	d.pendingDict, d.pendingBody = h, body
	if d.keepIndices {
		return d.ensureDictionary()
	}
	return nil
}

// ensureDictionary decodes the pending dictionary page, if any.
func (d *pageDecoder) ensureDictionary() error {
	if d.pendingDict == nil {
		return nil
	}
	h, body := d.pendingDict, d.pendingBody
	d.pendingDict, d.pendingBody = nil, nil
	return d.readDictionary(h, body)
}

// readDictionary decodes a dictionary page (its header checked by setDictionary) into d.dict
// (converted to Arrow layout).
func (d *pageDecoder) readDictionary(h *format.PageHeader, body []byte) error {
	dh := h.DictionaryPageHeader
	if err := d.checkCRC(h, body); err != nil {
		return err
	}
	data, err := d.decompress(body, int(h.UncompressedPageSize))
	if err != nil {
		return err
	}
	n := int(dh.NumValues)
	if n < 0 {
		return d.errf(ErrPage, "dictionary page with %d values", n)
	}
	var phys Values
	if err := d.decodePlain(&phys, data, n); err != nil {
		return err
	}
	dict := &phys
	if !d.convertCopies(&phys) {
		dict = &Values{}
		if err := d.convert(dict, &phys); err != nil {
			return err
		}
	}
	d.dict = dict
	return nil
}

// convertCopies: convert would only copy phys, so a dictionary is phys itself (decodePlain
// copied it out of the scratch the data pages reuse); 18% of a `value` scan's engine allocations.
func (d *pageDecoder) convertCopies(phys *Values) bool {
	if phys.Width == 0 {
		return d.conv.IsVar()
	}
	return phys.Width > 0 && d.conv.kind == convCopy && d.conv.OutWidth == phys.Width
}
