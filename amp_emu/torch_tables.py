"""PyTorch 2.13's autocast op lists as data (the tables ``amp_emu.policy`` builds policies from).

``TORCH_KERNELS[device_type]``: every kernel PyTorch registers under ``AutocastCUDA`` /
``AutocastCPU`` (name or ``name.overload``) -> ``CastCategory``; regenerate the names with
``torch._C._dispatch_get_registrations_for_dispatch_key('AutocastCPU')``. ``_ALIASES``: minigrad op
names that differ from PyTorch's. ``UNTOUCHED_OPS``: ops PyTorch does not list (they run on their
inputs unchanged) that minigrad has or may have.
"""
from __future__ import annotations

from ._category import CastCategory

L, F, S, A, P, B, U = (CastCategory.LOWER_PRECISION_FP, CastCategory.FP32,
                       CastCategory.FP32_SET_OPT_DTYPE, CastCategory.FP32_APPEND_DTYPE,
                       CastCategory.PROMOTE, CastCategory.BANNED, CastCategory.UNTOUCHED)


def _table(**lists):
    out = {}
    for cat_name, names in lists.items():
        for n in names.split():
            out[n] = CastCategory[cat_name]
    return out


# PyTorch 2.13, AutocastCUDA: 119 kernels (facts §1.2).
_CUDA = _table(
    LOWER_PRECISION_FP="""_convolution _convolution.deprecated conv1d conv2d conv3d conv_tbc
        conv_transpose1d conv_transpose2d.input conv_transpose3d.input convolution cudnn_convolution
        cudnn_convolution_transpose prelu addmm addmv addr matmul einsum mm mv linalg_vecdot linear
        addbmm baddbmm bmm chain_matmul linalg_multi_dot _thnn_fused_lstm_cell _thnn_fused_gru_cell
        lstm_cell gru_cell rnn_tanh_cell rnn_relu_cell _scaled_dot_product_flash_attention
        scaled_dot_product_attention""",
    FP32="""acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt sinh tan
        pow.Scalar pow.Tensor_Scalar pow.Tensor_Tensor softplus layer_norm native_layer_norm
        rms_norm group_norm frobenius_norm.dim nuclear_norm nuclear_norm.dim cosine_similarity
        poisson_nll_loss cosine_embedding_loss nll_loss nll_loss2d hinge_embedding_loss kl_div
        l1_loss smooth_l1_loss huber_loss mse_loss margin_ranking_loss multilabel_margin_loss
        soft_margin_loss triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits
        dist pdist cdist renorm logsumexp upsample_nearest1d upsample_nearest2d upsample_nearest3d
        _upsample_nearest_exact1d _upsample_nearest_exact2d _upsample_nearest_exact3d
        upsample_linear1d upsample_bilinear2d _upsample_bilinear2d_aa upsample_trilinear3d
        upsample_bicubic2d _upsample_bicubic2d_aa""",
    FP32_SET_OPT_DTYPE="""prod prod.dim_int softmax.int log_softmax.int cumprod cumsum
        linalg_vector_norm linalg_matrix_norm linalg_matrix_norm.str_ord sum sum.dim_IntList""",
    FP32_APPEND_DTYPE="norm.Scalar norm.ScalarOpt_dim",
    PROMOTE="addcdiv addcmul atan2 bilinear cross dot vdot grid_sampler index_put tensordot "
            "scatter_add",
    BANNED="binary_cross_entropy",
)

# PyTorch 2.13, AutocastCPU: 127 kernels (facts §1.3).
_CPU = _table(
    LOWER_PRECISION_FP="""conv1d conv1d.padding conv2d conv2d.padding conv3d conv3d.padding bmm mm
        linalg_vecdot baddbmm addmm _addmm_activation addbmm linear _convolution.deprecated matmul
        conv_tbc mkldnn_rnn_layer conv_transpose1d conv_transpose2d.input conv_transpose3d.input
        prelu scaled_dot_product_attention _native_multi_head_attention""",
    FP32="""binary_cross_entropy binary_cross_entropy_with_logits mse_loss l1_loss smooth_l1_loss
        huber_loss nll_loss nll_loss2d cross_entropy_loss kl_div cosine_embedding_loss
        hinge_embedding_loss margin_ranking_loss soft_margin_loss triplet_margin_loss
        multi_margin_loss multilabel_margin_loss multilabel_margin_loss_forward poisson_nll_loss
        ctc_loss.IntList ctc_loss.Tensor prod prod.dim_int quantile quantile.scalar nanquantile
        nanquantile.scalar trace cdist polar view_as_complex stft stft.center avg_pool3d max_pool3d
        adaptive_avg_pool3d adaptive_max_pool3d fractional_max_pool2d fractional_max_pool3d
        max_unpool2d max_unpool3d reflection_pad1d reflection_pad2d replication_pad1d
        replication_pad2d replication_pad3d grid_sampler grid_sampler_2d grid_sampler_3d
        _grid_sampler_2d_cpu_fallback fft_fft fft_ifft fft_fft2 fft_ifft2 fft_fftn fft_ifftn
        fft_rfft fft_irfft fft_rfft2 fft_irfft2 fft_rfftn fft_irfftn fft_hfft fft_ihfft cholesky
        cholesky_inverse cholesky_solve inverse lu_solve orgqr ormqr pinverse geqrf _lu_with_info
        qr svd triangular_solve linalg_cholesky linalg_cholesky_ex linalg_cond linalg_cond.p_str
        linalg_eig linalg_eigh linalg_eigvals linalg_eigvalsh linalg_householder_product linalg_inv
        linalg_inv_ex linalg_lstsq linalg_matrix_rank linalg_matrix_rank.atol_rtol_float
        linalg_matrix_rank.atol_rtol_tensor linalg_matrix_rank.tol_tensor linalg_qr linalg_solve
        linalg_svd linalg_svdvals linalg_tensorinv linalg_tensorsolve
        fake_quantize_per_tensor_affine""",
    PROMOTE="cat stack index_copy",
)

TORCH_KERNELS = {"cuda": _CUDA, "cpu": _CPU}
"""Per device type: PyTorch kernel name (``name`` or ``name.overload``) -> CastCategory."""

# minigrad op names that differ from PyTorch's registered names, per device type:
# name -> (category, PyTorch name, note)
_ALIASES = {
    "cuda": {
        "cross_entropy": (F, "cross_entropy_loss",
                          "not listed on cuda; decomposes into log_softmax (fp32_set_opt_dtype) and "
                          "nll_loss (fp32), so it runs in fp32"),
        "cross_entropy_loss": (F, "cross_entropy_loss",
                               "not listed on cuda; decomposes into log_softmax "
                               "(fp32_set_opt_dtype) and nll_loss (fp32), so it runs in fp32"),
        "rpow": (F, "pow.Scalar", "scalar ** tensor"),
        "pow": (F, "pow.Tensor_Tensor", "pow.Tensor_Scalar for a scalar exponent"),
        "norm": (A, "norm.Scalar", "norm.ScalarOpt_dim with dim"),
        "_cdist_forward": (F, "cdist", "torch.cdist's kernel: PyTorch casts at cdist, above it"),
        "_euclidean_dist": (F, "cdist", "torch.cdist's matmul path: cast at cdist"),
    },
    "cpu": {
        "cross_entropy": (F, "cross_entropy_loss", ""),
        "rpow": (U, "pow.Scalar", ""),
        "_cdist_forward": (F, "cdist", "torch.cdist's kernel: PyTorch casts at cdist, above it"),
        "_euclidean_dist": (F, "cdist", "torch.cdist's matmul path: cast at cdist"),
        "_linalg_eigh": (F, "linalg_eigh", "linalg.eigh's kernel"),
        "_linalg_svd": (F, "linalg_svd", "linalg.svd's kernel"),
        "linalg_pinv": (F, "pinverse", "torch.pinverse decomposes into linalg_pinv"),
    },
}

UNTOUCHED_OPS = frozenset("""
    aminmax bincount corrcoef cov cummin diff frexp.Tensor histc kron linalg_cross linalg_det
    linalg_matrix_power linalg_slogdet logcumsumexp rot90 signbit trapezoid vander
    _linalg_eigh _linalg_svd linalg_cholesky_ex linalg_inv_ex linalg_pinv linalg_qr linalg_solve
    nanquantile quantile trace
    digamma lgamma mode mvlgamma nanmean nanmedian nansum polygamma special_entr special_xlog1py
    special_xlog1py.other_scalar special_xlog1py.self_scalar special_zeta special_zeta.other_scalar
    special_zeta.self_scalar
    _scaled_mm _to_copy_stochastic linalg_vector_norm add sub rsub mul div rdiv add.Scalar sub.Scalar mul.Scalar div.Scalar true_divide neg abs sign pow rpow exp exp2 log log2 log10 log1p expm1 sqrt rsqrt
    reciprocal square sin cos tan tanh sigmoid relu relu6 leaky_relu elu selu celu gelu silu mish
    hardtanh hardsigmoid hardswish softplus softsign logsigmoid threshold erf erfinv floor ceil round
    trunc frac clamp clamp_min clamp_max clip maximum minimum fmax fmin where lerp addcmul addcdiv
    atan2 hypot logaddexp logaddexp2 remainder fmod floor_divide eq ne lt le gt ge logical_not
    logical_and logical_or logical_xor bitwise_not bitwise_and bitwise_or bitwise_xor bitwise_left_shift
    bitwise_right_shift bitwise_not_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_left_shift_
    bitwise_right_shift_ isfinite isnan isinf nan_to_num sum mean var std var_mean std_mean prod
    cumsum cumprod max min amax amin argmax argmin all any norm logsumexp sum_to_size count_nonzero
    kthvalue median sort.stable linalg_matrix_norm linalg_matrix_norm.str_ord max.dim min.dim
    softmax log_softmax _softmax _log_softmax layer_norm native_layer_norm rms_norm group_norm
    batch_norm native_batch_norm dropout native_dropout embedding max_pool1d max_pool2d avg_pool1d
    avg_pool2d adaptive_avg_pool2d adaptive_max_pool2d max_pool2d_with_indices pad constant_pad_nd
    interpolate upsample_nearest2d upsample_bilinear2d upsample_linear1d upsample_trilinear3d
    upsample_bicubic2d upsample_bicubic2d_backward
    i0 i0_ special_i0e special_i1 special_i1e special_ndtri special_log_ndtr special_erfcx
    one_hot mv addmv addr dot vdot bilinear cross
    einsum tensordot index_put index_put_ scatter_add scatter gather index_select index
    masked_fill take_along_dim expand reshape view view.dtype flatten unflatten transpose permute t squeeze
    unsqueeze contiguous narrow select slice split chunk unbind repeat tile flip roll tril triu
    diag diagonal cat stack block_diag index_copy clone _to_copy detach alias copy_ fill_ zero_ add_ sub_ mul_
    div_ clamp_ pow_ addcmul_ addcdiv_ lerp_ sqrt_ neg_ exp_ mul_scalar_ masked_fill_ copysign
    uniform_ normal_ bernoulli_ bernoulli multinomial
    tensor zeros ones full empty zeros_like ones_like full_like empty_like arange eye linspace randn
    rand randint randperm randn_like rand_like randint_like normal normal.float_float
    tril_indices triu_indices logspace
    threshold_backward tanh_backward sigmoid_backward gelu_backward silu_backward
    _softmax_backward_data _log_softmax_backward_data native_layer_norm_backward
    native_batch_norm_backward mse_loss_backward nll_loss_backward nll_loss_forward
    embedding_dense_backward max_pool2d_with_indices_backward avg_pool2d_backward
    convolution_backward binary_cross_entropy_backward l1_loss_backward smooth_l1_loss_backward
    huber_loss_backward native_dropout_backward elu_backward leaky_relu_backward hardtanh_backward
    softplus_backward rms_norm_backward log_sigmoid_backward
    _amp_foreach_non_finite_check_and_unscale_ _amp_update_scale_ _local_scalar_dense
    _fp8_gemm _fp8_amax_and_scale_update_
    _foreach_add _foreach_add_ _foreach_sub_ _foreach_mul _foreach_mul_ _foreach_div _foreach_div_
    _foreach_addcmul_ _foreach_addcdiv_ _foreach_lerp_ _foreach_sqrt _foreach_sqrt_ _foreach_neg
    _foreach_neg_ _foreach_maximum_ _foreach_zero_ _foreach_norm _foreach_clamp_min_
    _foreach_clamp_max_ _fused_sgd_ _fused_adam_ _fused_adamw_ _fused_adagrad_
    _foreach_abs _foreach_abs_ _foreach_acos _foreach_acos_ _foreach_addcdiv _foreach_addcmul
    _foreach_asin _foreach_asin_ _foreach_atan _foreach_atan_ _foreach_ceil _foreach_ceil_
    _foreach_clamp_max _foreach_clamp_min _foreach_clone _foreach_copy_ _foreach_cos _foreach_cos_
    _foreach_cosh _foreach_cosh_ _foreach_erf _foreach_erf_ _foreach_erfc _foreach_erfc_
    _foreach_exp _foreach_exp_ _foreach_expm1 _foreach_expm1_ _foreach_floor _foreach_floor_
    _foreach_frac _foreach_frac_ _foreach_lerp _foreach_lgamma _foreach_lgamma_ _foreach_log
    _foreach_log10 _foreach_log10_ _foreach_log1p _foreach_log1p_ _foreach_log2 _foreach_log2_
    _foreach_log_ _foreach_max _foreach_maximum _foreach_minimum _foreach_minimum_ _foreach_pow
    _foreach_pow_ _foreach_reciprocal _foreach_reciprocal_ _foreach_round _foreach_round_
    _foreach_rsqrt _foreach_rsqrt_ _foreach_sigmoid _foreach_sigmoid_ _foreach_sign _foreach_sign_
    _foreach_sin _foreach_sin_ _foreach_sinh _foreach_sinh_ _foreach_sub _foreach_tan
    _foreach_tan_ _foreach_tanh _foreach_tanh_ _foreach_trunc _foreach_trunc_
    hardshrink hardshrink_backward softshrink softshrink_backward threshold_ celu_ _prelu_kernel
    _prelu_kernel_backward rrelu rrelu_ rrelu_with_noise rrelu_with_noise_ rrelu_with_noise_backward
    searchsorted bucketize _unique2 unique_dim
    true_divide _unsafe_view _index_backward _reshape_alias as_strided view_as squeeze_
    unsqueeze_ transpose_ t_ index_add index_fill masked_select nonzero sort topk cummax
    _squeeze_result nll_loss2d_backward nll_loss2d_forward mm_backward _unsafe_index
    as_strided split_with_sizes relu_ sigmoid_ tanh_ _strided_gather _strided_scatter_add _strided_put
    scatter.src scatter.value scatter.reduce scatter.value_reduce scatter_.src scatter_.value
    scatter_add_ scatter_reduce.two scatter_reduce_.two index_add_ index_copy_
    index_fill.int_Scalar index_fill_.int_Scalar masked_scatter masked_scatter_
    repeat_interleave.Tensor diag_embed diagonal_copy diagonal_backward unfold unfold_backward
    reflection_pad1d reflection_pad2d replication_pad1d replication_pad2d
    reflection_pad1d_backward reflection_pad2d_backward replication_pad1d_backward
    replication_pad2d_backward im2col col2im reflection_pad3d replication_pad3d
    reflection_pad3d_backward replication_pad3d_backward index_fill.int_Tensor
    index_fill_.int_Tensor renorm renorm_ index_reduce index_reduce_ linalg_solve_triangular cholesky_inverse
    convolution max_pool1d_with_indices _adaptive_avg_pool2d _adaptive_avg_pool2d_backward
    adaptive_avg_pool1d adaptive_max_pool2d_backward adaptive_max_pool1d
    upsample_nearest2d_backward upsample_bilinear2d_backward pixel_shuffle pixel_unshuffle
    upsample_linear1d_backward upsample_trilinear3d_backward _upsample_nearest_exact2d
    _upsample_nearest_exact2d_backward _upsample_bilinear2d_aa _upsample_bicubic2d_aa
    div.Tensor div.Tensor_mode rsub.Tensor rsub.Scalar pow.Tensor_Tensor pow.Tensor_Scalar
    pow.Scalar
    asin acos atan sinh cosh log_sigmoid mish_backward hardswish_backward hardsigmoid_backward
    round.decimals lerp.Scalar lerp.Tensor clamp_min.Tensor clamp_max.Tensor
    sin_ cos_ tan_ asin_ acos_ atan_ sinh_ cosh_ log1p_ expm1_ log2_ log10_ rsqrt_ erf_ erfinv_
    floor_ ceil_ trunc_ frac_ round_ nan_to_num_ atan2_ lerp_.Scalar lerp_.Tensor clamp_min_
    clamp_min_.Tensor clamp_max_ clamp_max_.Tensor silu_ mish_ elu_ selu_ leaky_relu_ hardtanh_
    relu6_ hardswish_ hardsigmoid_ logical_and_ logical_or_ logical_xor_ logical_not_
    _trilinear cosine_similarity glu glu_backward linalg_multi_dot multi_margin_loss_backward
    outer pairwise_distance soft_margin_loss_backward xlogy
    bernoulli.p bernoulli_.float bernoulli_.Tensor exponential_ random_ normal.Tensor_float
    normal.float_Tensor normal.Tensor_Tensor dropout_ feature_dropout feature_dropout_
    alpha_dropout alpha_dropout_ feature_alpha_dropout feature_alpha_dropout_ embedding_renorm_
    _scaled_dot_product_flash_attention_for_cpu _scaled_dot_product_flash_attention_for_cpu_backward
    native_group_norm native_group_norm_backward instance_norm
    embedding_bag _embedding_bag _embedding_bag_forward_only _embedding_bag_backward
    _embedding_bag_dense_backward _embedding_bag_per_sample_weights_backward max_unpool2d
    ctc_loss.IntList ctc_loss.Tensor _ctc_loss _ctc_loss_backward
    abs_ log_ reciprocal_ sign_ square_ pow_.Scalar pow_.Tensor remainder_ fmod_ floor_divide_
    xlogy_ addmm_ addmv_ addr_ baddbmm_ addbmm_ cumsum_ cumprod_ tril_ triu_ masked_fill_.Scalar
    masked_fill_.Tensor eq_.Scalar eq_.Tensor ne_.Scalar ne_.Tensor lt_.Scalar lt_.Tensor
    le_.Scalar le_.Tensor gt_.Scalar gt_.Tensor ge_.Scalar ge_.Tensor resize_ resize_as_
    asinh acosh atanh asinh_ acosh_ atanh_ fill_diagonal_ sgn sgn_ deg2rad deg2rad_ rad2deg
    rad2deg_ exp2_ hypot_ as_strided_
    xlogy.Scalar_Other xlogy.Scalar_Self cauchy_ log_normal_ geometric_ sinc sinc_ logit logit_
    copysign.Tensor copysign.Scalar copysign_.Tensor copysign_.Scalar ldexp ldexp_ nextafter
    nextafter_ gcd gcd_ lcm lcm_ heaviside heaviside_ erfc erfc_ conj_physical_ put put_ take
""".split())
"""Ops minigrad has (or may have) that PyTorch's lists do not name: both tables say UNTOUCHED
unless the device's PyTorch list names them (then the list wins)."""
