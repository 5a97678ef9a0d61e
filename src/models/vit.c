/*
 * vit: the Vision Transformer family (SL_FAMILY_VIT) from its shape keys, as timm and torchvision build
 * it (docs/models.md "Vision Transformers"). The shape is read under the keys rules/architectures.yaml
 * gives it (transformers' ViTConfig spellings: hidden_size, num_hidden_layers, num_attention_heads,
 * intermediate_size, image_size, patch_size, num_channels) plus num_classes, the classifier's outputs.
 * The layout is timm's VisionTransformer (timm/models/vision_transformer.py @aa4b5850c1543fa488abf260f18390eda46cf85d)
 * with its defaults, which torchvision's VisionTransformer (torchvision/models/vision_transformer.py
 * @07a929e8b851242b1c75c9016ee06a8e502961d8) matches tensor for tensor: counted in arch.c. A transformers
 * config.json of model_type "vit" (ViTForImageClassification) holds the same tensors (separate q/k/v
 * Linears with qkv_bias count as timm's fused qkv); its head is counted at 1000 classes unless num_classes
 * is given (id2label is not read: a 2-label fine-tune is 0.9% under that), and a bare ViTModel has a pooler
 * and no head.
 */
#include <string.h>

#include "hfconfig.h"

const char *hf_vit_config(const struct hf_config *c, struct sl_arch *a)
{
	sl_arch_init(a, SL_FAMILY_VIT);
	if (!c->hidden_size)
		return "hidden_size";
	if (!c->num_hidden_layers)
		return "num_hidden_layers";
	if (!c->num_attention_heads)
		return "num_attention_heads";
	if (!c->image_size)
		return "image_size";
	if (!c->patch_size)
		return "patch_size";
	a->hidden = *c->hidden_size;
	a->layers = *c->num_hidden_layers;
	a->heads = a->kv_heads = *c->num_attention_heads;
	a->head_dim = a->heads ? a->hidden / a->heads : 0;
	/* timm mlp_ratio 4 (a ViT-g's 48/11 is given as intermediate_size) */
	a->intermediate = c->intermediate_size ? *c->intermediate_size : 4 * a->hidden;
	a->vis_image = *c->image_size;
	a->vis_patch = *c->patch_size;
	if (!a->vis_patch || a->vis_image % a->vis_patch)
		return "patch_size"; /* torchvision asserts image_size % patch_size == 0 */
	a->max_pos = sl_arch_vit_tokens(a);
	if (c->num_channels)
		a->vis_chans = *c->num_channels;
	if (c->num_classes)
		a->classes = *c->num_classes;
	if (c->architecture && strcmp(c->architecture, "ViTModel") == 0) {
		/* transformers' bare ViTModel (google/vit-base-patch16-224-in21k): a pooler (dense + tanh over
		 * the class token, modeling_vit.py ViTPooler), no classifier */
		a->classes = 0;
		a->pooler = true;
	}
	return NULL;
}
