package arch

// This file reads mllama's vision tower (Llama 3.2 Vision): a ViT over up
// to max_num_tiles tiles of image_size pixels, with a class token, gated
// position and tile embeddings, num_hidden_layers plain encoder layers and
// num_global_layers gated ones, and the projector from vision_output_dim
// (the final state concatenated with intermediate ones) into the language
// model's width. Shapes as Blaizzy/mlx-vlm loads the checkpoint (at
// 9b13f522: models/mllama/vision.py VisionModel and its embeddings,
// models/mllama/mllama.py's multi_modal_projector), held to the published
// count by TestParams.

// mllamaTower is a vision_config's dimensions.
type mllamaTower struct {
	width, inter, layers, global, image, patch, channels, tiles, ratios, out int
}

// readMllamaVision reads mllama's vision_config. The aspect-ratio tables
// have one row per supported_aspect_ratios entry plus the padding id.
func readMllamaVision(_, vc *fields, textHidden int) *Vision {
	t := mllamaTower{width: vc.need("hidden_size"), inter: vc.need("intermediate_size"),
		layers: vc.need("num_hidden_layers"), global: vc.need("num_global_layers"), image: vc.need("image_size"),
		patch: vc.need("patch_size"), channels: vc.int("num_channels", 3), tiles: vc.need("max_num_tiles"),
		ratios: vc.count("supported_aspect_ratios"), out: vc.need("vision_output_dim")}
	if !bounded(vc, map[string]int{"hidden_size": t.width, "intermediate_size": t.inter, "num_hidden_layers": t.layers,
		"num_global_layers": t.global, "image_size": t.image, "patch_size": t.patch, "num_channels": t.channels,
		"max_num_tiles": t.tiles, "supported_aspect_ratios": t.ratios, "vision_output_dim": t.out}) {
		return nil
	}
	patches := (t.image/t.patch)*(t.image/t.patch) + 1 // and the class token
	local := newBuilder("v.blk.", "vision_model.transformer.layers.", 12*t.layers+16)
	t.embeddings(local, patches)
	t.encoder(local, t.layers, false)
	global := newBuilder("v.global.blk.", "vision_model.global_transformer.layers.", 14*t.global+2)
	t.encoder(global, t.global, true)
	global.mat("mm.proj", "multi_modal_projector", textHidden, t.out, true)
	return &Vision{Tensors: append(local.ts, global.ts...), ImageSize: t.image, PatchSize: t.patch,
		ImageTokens: t.tiles * patches}
}

// embeddings emits the patch convolution, the class token, the gated
// position table and its per-aspect-ratio tile table, the pre- and
// post-tile aspect-ratio embeddings, and the pre and post LayerNorms.
func (t *mllamaTower) embeddings(b *builder, patches int) {
	h, rows := t.width, t.ratios+1
	b.add("v.patch_embd", "vision_model.patch_embedding", false, 0, h, t.channels*t.patch*t.patch, KindOther)
	b.vec("v.class_embd", "vision_model.class_embedding", h)
	pos := "vision_model.gated_positional_embedding."
	b.add("v.position_embd", pos+"embedding", false, 0, patches, h, KindOther)
	b.add("v.tile_position_embd", pos+"tile_embedding", false, 0, rows, t.tiles*patches*h, KindOther)
	b.vec("v.position_gate", pos+"gate", 1)
	for _, m := range []string{"vision_model.pre_tile_positional_embedding.", "vision_model.post_tile_positional_embedding."} {
		b.add("v.tile_embd", m+"embedding", false, 0, rows, t.tiles*h, KindOther)
		b.vec("v.tile_gate", m+"gate", 1)
	}
	b.layerNorm("v.pre_ln", "vision_model.layernorm_pre", h)
	b.layerNorm("v.post_ln", "vision_model.layernorm_post", h)
}

// encoder emits n encoder layers: bias-free attention, a biased GELU MLP,
// two LayerNorms and, for the global layers, the tanh gates of each.
func (t *mllamaTower) encoder(b *builder, n int, gated bool) {
	h := t.width
	for i := range n {
		b.layer = i
		b.layerNorm("ln1", "input_layernorm", h)
		for _, p := range []string{"q", "k", "v", "o"} {
			b.mat("attn_"+p, "self_attn."+p+"_proj", h, h, false)
		}
		b.layerNorm("ln2", "post_attention_layernorm", h)
		b.mat("ffn_up", "mlp.fc1", t.inter, h, true)
		b.mat("ffn_down", "mlp.fc2", h, t.inter, true)
		if gated {
			b.vec("attn_gate", "gate_attn", 1)
			b.vec("ffn_gate_scalar", "gate_ffn", 1)
		}
	}
	b.layer = -1
}
