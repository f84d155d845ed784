/*
 * acl-cuda: log levels and module ids (CANN's base/log_types.h, included by
 * base/acl_log.h). Names and values are CANN's; the text is acl-cuda's own.
 */
#ifndef LOG_TYPES_H_
#define LOG_TYPES_H_

#if defined(_MSC_VER)
#define LOG_FUNC_VISIBILITY _declspec(dllexport)
#else
#define LOG_FUNC_VISIBILITY __attribute__((visibility("default")))
#endif

/* Levels. */
#define DLOG_DEBUG 0x0
#define DLOG_INFO 0x1
#define DLOG_WARN 0x2
#define DLOG_ERROR 0x3
#define DLOG_NULL 0x4 /* nothing is printed */

/* Where a record goes. */
#define DEBUG_LOG_MASK (0x00010000U)
#define SECURITY_LOG_MASK (0x00100000U)
#define RUN_LOG_MASK (0x01000000U)
#define STDOUT_LOG_MASK (0x10000000U)

/* Kinds of log. */
enum { DLOG_TYPE_DEBUG = 0, DLOG_TYPE_RUN = 1, DLOG_TYPE_MAX };

/* The longest record; longer ones are cut. */
#define MSG_LENGTH 1024

/* CANN's modules. An application's own modules take 0xff00 to 0xffff. */
enum {
    SLOG = 0,
    IDEDD = 1,
    SCC = 2,
    HCCL = 3,
    FMK = 4,
    CCU = 5,
    DVPP = 6,
    RUNTIME = 7,
    CCE = 8,
    HDC = 9,
    DRV = 10,
    NET = 11,
    HIXL = 12,
    DEVMM = 22,
    KERNEL = 23,
    LIBMEDIA = 24,
    CCECPU = 25,
    ROS = 27,
    HCCP = 28,
    ROCE = 29,
    TEFUSION = 30,
    PROFILING = 31,
    DP = 32,
    APP = 33,
    TS = 34,
    TSDUMP = 35,
    AICPU = 36,
    LP = 37,
    TDT = 38,
    FE = 39,
    MD = 40,
    MB = 41,
    ME = 42,
    IMU = 43,
    IMP = 44,
    GE = 45,
    CAMERA = 47,
    ASCENDCL = 48,
    TEEOS = 49,
    ISP = 50,
    SIS = 51,
    HSM = 52,
    DSS = 53,
    PROCMGR = 54,
    BBOX = 55,
    AIVECTOR = 56,
    TBE = 57,
    FV = 58,
    PYPTO = 59,
    TUNE = 60,
    HSS = 61,
    FFTS = 62,
    OP = 63,
    UDF = 64,
    HICAID = 65,
    TSYNC = 66,
    AUDIO = 67,
    TPRT = 68,
    ASCENDCKERNEL = 69,
    ASYS = 70,
    ATRACE = 71,
    RTC = 72,
    SYSMONITOR = 73,
    AML = 74,
    ADETECT = 75,
    INVALID_MODULE_ID = 76
};
/* The older spelling. */
#define INVLID_MOUDLE_ID INVALID_MODULE_ID

typedef enum { APPLICATION = 0, SYSTEM } ProcessType;

typedef struct {
    ProcessType type;
    unsigned int pid;
    unsigned int deviceId;
    unsigned int mode;
    char reserved[48]; /* to 64 bytes */
} LogAttr;

#define DLOG_ATTR_INIT_VALUE 0xFF

#endif /* LOG_TYPES_H_ */
