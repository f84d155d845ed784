/* The base functions of acl_base_rt.h and the version queries: data
 * buffers, data type sizes, half floats, aclrtGetVersion and the aclsys*
 * package versions, and their bad-argument rows. */
#include "bad_args.h"

COMPAT_TEST(data_buffer_round_trip,
            "aclCreateDataBuffer stores any address and size; the getters return them, "
            "aclUpdateDataBuffer changes them, aclDestroyDataBuffer frees the buffer",
            "acl_base_rt.h aclCreateDataBuffer, aclGetDataBufferAddr, aclGetDataBufferSizeV2, "
            "aclUpdateDataBuffer, aclDestroyDataBuffer")
{
    unsigned char block[256];
    aclDataBuffer *buffer = aclCreateDataBuffer(block, sizeof block);
    ck_assert_ptr_nonnull(buffer);
    ck_assert_ptr_eq(aclGetDataBufferAddr(buffer), block);
    ck_assert_uint_eq(aclGetDataBufferSizeV2(buffer), sizeof block);
    ck_assert_uint_eq(aclGetDataBufferSize(buffer), sizeof block);
    ACL_OK(aclUpdateDataBuffer(buffer, block + 64, 64));
    ck_assert_ptr_eq(aclGetDataBufferAddr(buffer), block + 64);
    ck_assert_uint_eq(aclGetDataBufferSizeV2(buffer), 64);
    ACL_OK(aclDestroyDataBuffer(buffer));

    /* An empty buffer is a buffer too. */
    buffer = aclCreateDataBuffer(NULL, 0);
    ck_assert_ptr_nonnull(buffer);
    ck_assert_ptr_null(aclGetDataBufferAddr(buffer));
    ck_assert_uint_eq(aclGetDataBufferSizeV2(buffer), 0);
    ACL_OK(aclDestroyDataBuffer(buffer));
}

COMPAT_TEST(data_type_sizes,
            "aclDataTypeSize gives each aclDataType's size in bytes",
            "acl_base_rt.h aclDataTypeSize, aclDataType")
{
    ck_assert_uint_eq(aclDataTypeSize(ACL_FLOAT), 4);
    ck_assert_uint_eq(aclDataTypeSize(ACL_FLOAT16), 2);
    ck_assert_uint_eq(aclDataTypeSize(ACL_INT8), 1);
    ck_assert_uint_eq(aclDataTypeSize(ACL_INT32), 4);
    ck_assert_uint_eq(aclDataTypeSize(ACL_UINT8), 1);
    ck_assert_uint_eq(aclDataTypeSize(ACL_INT16), 2);
    ck_assert_uint_eq(aclDataTypeSize(ACL_INT64), 8);
    ck_assert_uint_eq(aclDataTypeSize(ACL_DOUBLE), 8);
    ck_assert_uint_eq(aclDataTypeSize(ACL_BOOL), 1);
    ck_assert_uint_eq(aclDataTypeSize(ACL_BF16), 2);
}

COMPAT_TEST(half_floats,
            "aclFloatToFloat16 and aclFloat16ToFloat convert IEEE half floats (1.0 = 0x3C00, "
            "-2.0 = 0xC000, 0.5 = 0x3800) and round-trip representable values",
            "acl_base_rt.h aclFloatToFloat16, aclFloat16ToFloat")
{
    ck_assert_uint_eq(aclFloatToFloat16(1.0f), 0x3C00);
    ck_assert_uint_eq(aclFloatToFloat16(0.5f), 0x3800);
    ck_assert(aclFloat16ToFloat(0x3C00) == 1.0f);
    ck_assert(aclFloat16ToFloat(0xC000) == -2.0f);
    const float values[] = {0.0f, 1.5f, -3.25f, 65504.0f};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        ck_assert_msg(aclFloat16ToFloat(aclFloatToFloat16(values[i])) == values[i],
                      "%g did not round-trip", (double)values[i]);
}

COMPAT_TEST(package_versions,
            "aclsysGetVersionStr, aclsysGetVersionNum and aclsysGetCANNVersion answer for the "
            "runtime package with a non-empty version; for a version X.Y.Z the number is "
            "X*10^7 + Y*10^5 + Z*10^3",
            "acl_rt.h aclsysGetVersionStr, aclsysGetVersionNum, aclsysGetCANNVersion; CANN runtime "
            "example 0_quickstart/2_system_info (9.1.0 gives 90100000)")
{
    char name[] = "runtime";
    char version[ACL_PKG_VERSION_MAX_SIZE] = "";
    ACL_OK(aclsysGetVersionStr(name, version));
    ck_assert_int_gt(strlen(version), 0);
    int32_t number = -1;
    ACL_OK(aclsysGetVersionNum(name, &number));
    ck_assert_int_gt(number, 0);
    int major, minor, patch, end = 0;
    if (sscanf(version, "%d.%d.%d%n", &major, &minor, &patch, &end) == 3 &&
        version[end] == '\0')
        ck_assert_int_eq(number, major * 10000000 + minor * 100000 + patch * 1000);
    aclCANNPackageVersion package;
    memset(&package, 0, sizeof package);
    ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &package));
    ck_assert_int_gt(strlen(package.version), 0);
}

/* ---- bad arguments ------------------------------------------------------------------ */

ROW(aclCreateDataBuffer)
{
    /* The data pointer is only stored: any value is accepted and returned. */
    unsigned char local[8];
    void *values[] = {NULL, local, (void *)(uintptr_t)16, (void *)(UINTPTR_MAX - 15)};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        aclDataBuffer *b = aclCreateDataBuffer(values[i], SIZE_MAX);
        ck_assert_ptr_nonnull(b);
        ck_assert_ptr_eq(aclGetDataBufferAddr(b), values[i]);
        ck_assert_uint_eq(aclGetDataBufferSizeV2(b), SIZE_MAX);
        ACL_OK(aclDestroyDataBuffer(b));
    }
}

ROW(aclDestroyDataBuffer)
{
    FOR_EACH_BAD(KIND_BUFFER, h, ACL_ERROR_INVALID_PARAM, aclDestroyDataBuffer(h));
}

ROW(aclUpdateDataBuffer)
{
    FOR_EACH_BAD(KIND_BUFFER, h, ACL_ERROR_INVALID_PARAM, aclUpdateDataBuffer(h, NULL, 8));
}

ROW(aclGetDataBufferAddr)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, NULL, aclGetDataBufferAddr(h));
}

ROW(aclGetDataBufferSize)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, 0u, aclGetDataBufferSize(h));
}

ROW(aclGetDataBufferSizeV2)
{
    FOR_EACH_BAD_VALUE(KIND_BUFFER, h, 0u, aclGetDataBufferSizeV2(h));
}

ROW(aclrtGetVersion)
{
    int32_t a, b;
    REJECTS(aclrtGetVersion(NULL, &a, &b), ACL_ERROR_INVALID_PARAM, "a NULL major");
    REJECTS(aclrtGetVersion(&a, NULL, &b), ACL_ERROR_INVALID_PARAM, "a NULL minor");
    REJECTS(aclrtGetVersion(&a, &b, NULL), ACL_ERROR_INVALID_PARAM, "a NULL patch");
}

ROW(aclsysGetCANNVersion)
{
    REJECTS(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL), ACL_ERROR_INVALID_PARAM,
            "a NULL version");
}

ROW(aclsysGetVersionNum)
{
    int32_t num;
    char name[] = "runtime";
    REJECTS(aclsysGetVersionNum(NULL, &num), ACL_ERROR_INVALID_PARAM, "a NULL pkgName");
    REJECTS(aclsysGetVersionNum(name, NULL), ACL_ERROR_INVALID_PARAM, "a NULL versionNum");
}

ROW(aclsysGetVersionStr)
{
    char version[ACL_PKG_VERSION_MAX_SIZE];
    char name[] = "runtime";
    REJECTS(aclsysGetVersionStr(NULL, version), ACL_ERROR_INVALID_PARAM, "a NULL pkgName");
    REJECTS(aclsysGetVersionStr(name, NULL), ACL_ERROR_INVALID_PARAM, "a NULL versionStr");
}

ROW(aclAppLog)
{
    /* No error channel: the call must simply return. With NULL strings
     * (undefined in ACL) only when hostile arguments are on. */
    aclAppLog(ACL_ERROR, "row", "file", 1, "%s", "text");
    if (level == COMPAT_HOSTILE) {
        aclAppLog(ACL_ERROR, NULL, NULL, 0, NULL);
        aclAppLog(ACL_ERROR, NULL, NULL, 0, "%s", "text");
        aclAppLog((aclLogLevel)99, "f", "file", 1, NULL);
    }
}

/* ---- issue 17: base ---------------------------------------------------------------- */

COMPAT_TEST(cann_attributes_agree,
            "aclGetCannAttributeList lists the attributes aclGetCannAttribute answers 1 for, and only those",
            "API ref aclGetCannAttributeList, aclGetCannAttribute")
{
    const aclCannAttr *list;
    size_t num;
    ACL_OK(aclGetCannAttributeList(&list, &num));
    bool listed[3] = {false, false, false};
    for (size_t i = 0; i < num; i++) {
        ck_assert_int_ge(list[i], 0);
        ck_assert_int_le(list[i], 2);
        listed[list[i]] = true;
    }
    for (int a = 0; a <= 2; a++) {
        int32_t v = -1;
        ACL_OK(aclGetCannAttribute((aclCannAttr)a, &v));
        ck_assert_int_eq(v, listed[a] ? 1 : 0);
    }
}
ROW(aclGetCannAttributeList)
{
    const aclCannAttr *list;
    size_t num;
    REJECTS(aclGetCannAttributeList(NULL, &num), ACL_ERROR_INVALID_PARAM, "a NULL list");
    REJECTS(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM, "a NULL count");
}

ROW(aclGetCannAttribute)
{
    REJECTS(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM, "a NULL value");
}

static const compat_row rows[] = {
    COMPAT_ROW(aclAppLog),
    COMPAT_ROW(aclCreateDataBuffer),
    COMPAT_ROW(aclDestroyDataBuffer),
    COMPAT_ROW(aclGetDataBufferAddr),
    COMPAT_ROW(aclGetDataBufferSize),
    COMPAT_ROW(aclGetDataBufferSizeV2),
    COMPAT_ROW(aclUpdateDataBuffer),
    COMPAT_ROW(aclrtGetVersion),
    COMPAT_ROW(aclsysGetCANNVersion),
    COMPAT_ROW(aclsysGetVersionNum),
    COMPAT_ROW(aclsysGetVersionStr),
    COMPAT_ROW(aclGetCannAttributeList),
    COMPAT_ROW(aclGetCannAttribute),
};
COMPAT_BAD_ARGS(base, rows);

Suite *compat_suite_base(void);
Suite *compat_suite_base(void)
{
    Suite *s = suite_create("base");
    TCase *values = tcase_create("values");
    tcase_add_checked_fixture(values, compat_init, compat_finalize);
    tcase_add_test(values, data_buffer_round_trip);
    tcase_add_test(values, data_type_sizes);
    tcase_add_test(values, half_floats);
    tcase_add_test(values, package_versions);
    suite_add_tcase(s, values);

    TCase *more = tcase_create("control");
    tcase_add_checked_fixture(more, compat_set_up, compat_tear_down);
    tcase_set_timeout(more, 60);
    tcase_add_test(more, cann_attributes_agree);
    suite_add_tcase(s, more);

    compat_add_bad_args(s, &compat_rows_base);
    return s;
}

COMPAT_MAIN(base)
